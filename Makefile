# The two commands of the README: `make demo` and `make test` (each sets up what is missing).
# Both run in the project's virtual environment .venv (made by scripts/setup.sh, ignored by git),
# so they work on a stock Debian Python, whose own pip refuses to install (PEP 668).
# `make demo` builds the project's example model, then checks it against TFLite Micro on the
# host and on an emulated Cortex-M4.
VENV ?= .venv
PYTHON := $(VENV)/bin/python
MICROFUSE := $(VENV)/bin/microfuse
EXAMPLE ?= examples/tiny_cnn_int8.tflite

.PHONY: setup demo test
setup:
	@VENV=$(VENV) ./scripts/setup.sh

demo: setup
	$(MICROFUSE) build $(EXAMPLE) -o out/demo --name demo
	$(MICROFUSE) verify $(EXAMPLE) --board host --samples 20
	$(MICROFUSE) verify $(EXAMPLE) --board qemu-mps2-an386 --samples 5

test: setup
	$(PYTHON) -m pytest -n 2 --dist loadfile
