"""`python -m microfuse`: the same as the `microfuse` command."""

try:  # from the first statement on: a signal while Python imports is no traceback either
    from .signals import Terminated, handled

    with handled():
        from .cli import main

        status = main()
except KeyboardInterrupt:  # before main() took over the signals: the same line it prints
    print("microfuse: interrupted", file=__import__("sys").stderr)
    status = 130
except Terminated as e:
    print(f"microfuse: terminated ({e})", file=__import__("sys").stderr)
    status = e.exit_status
raise SystemExit(status)
