"""microfuse: compile a .tflite model into a static C inference library."""

__version__ = "0.1.0"
