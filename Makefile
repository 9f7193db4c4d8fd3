# The two commands of the README: `make demo` and `make test` (each sets up what is missing).
# `make demo` builds the project's example model, then checks it against TFLite Micro on the
# host and on an emulated Cortex-M4.
PYTHON ?= python3
EXAMPLE ?= examples/tiny_cnn_int8.tflite

.PHONY: setup demo test
setup:
	@./scripts/setup.sh

demo: setup
	microfuse build $(EXAMPLE) -o out/demo --name demo
	microfuse verify $(EXAMPLE) --board host --samples 20
	microfuse verify $(EXAMPLE) --board qemu-mps2-an386 --samples 5

test: setup
	$(PYTHON) -m pytest -n 2 --dist loadfile
