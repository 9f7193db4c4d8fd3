"""`python -m microfuse`: the same as the `microfuse` command."""

import signal

# While Python imports, a signal is only noted (raising inside importlib's callbacks prints
# "Exception ignored"); once the CLI is loaded, signals.handled() unwinds and cleans up.
_early: list[int] = []
for _s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    if signal.getsignal(_s) is not signal.SIG_IGN:
        signal.signal(_s, lambda signum, frame: _early.append(signum))

from .signals import Terminated, handled  # noqa: E402

try:
    with handled():
        if _early:
            raise KeyboardInterrupt if _early[0] == signal.SIGINT else Terminated(_early[0])
        from .cli import main

        status = main()
except KeyboardInterrupt:  # before main() took over the signals: the same line it prints
    print("microfuse: interrupted", file=__import__("sys").stderr)
    status = 130
except Terminated as e:
    print(f"microfuse: terminated ({e})", file=__import__("sys").stderr)
    status = e.exit_status
raise SystemExit(status)
