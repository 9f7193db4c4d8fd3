# The two commands of the README: `make demo` and `make test` (each sets up what is missing).
PYTHON ?= python3
EXAMPLE ?= examples/tiny_cnn_int8.tflite

.PHONY: setup demo test
setup:
	@./scripts/setup.sh

demo: setup
	microfuse build $(EXAMPLE) -o out/demo --name demo
	microfuse verify $(EXAMPLE) --board host --samples 20

test: setup
	$(PYTHON) -m pytest -n 2 --dist loadfile
