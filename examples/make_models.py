"""Make the example models in this folder with TensorFlow (not part of the test suite).

    pip install tensorflow-cpu
    python examples/make_models.py

Writes, next to this script:
  tiny_cnn_int8.tflite   16x16x1 image -> 4 classes: conv, depthwise, max pool, dense, softmax (int8)
  residual_int8.tflite   16x16x1 image -> 4 classes: a ResNet basic block with ADD (int8)
  sine_float.tflite      x -> sin(x): a float32 MLP, like TFLM's hello_world

Both int8 models are fully integer (int8 input and output), quantized with a representative
dataset; training and calibration use fixed seeds so reruns give the same files.
"""

from __future__ import annotations

import os
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # keep TensorFlow's start-up chatter out of the output
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

HERE = Path(__file__).resolve().parent
SIDE, CLASSES = 16, 4


def patterns(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Noisy 16x16 images of four classes: horizontal bar, vertical bar, diagonal, blob."""
    x = rng.normal(0.0, 0.2, size=(n, SIDE, SIDE, 1)).astype(np.float32)
    y = rng.integers(0, CLASSES, size=n)
    for img, label in zip(x, y):
        a, b = rng.integers(2, SIDE - 2, size=2)
        if label == 0:
            img[a - 1:a + 1, :, 0] += 1.0
        elif label == 1:
            img[:, b - 1:b + 1, 0] += 1.0
        elif label == 2:
            idx = np.arange(SIDE)
            img[idx, (idx + a) % SIDE, 0] += 1.0
        else:
            img[a - 2:a + 2, b - 2:b + 2, 0] += 1.0
    return x, y


def tiny_cnn() -> tf.keras.Model:
    inp = tf.keras.Input((SIDE, SIDE, 1), batch_size=1)
    x = tf.keras.layers.Conv2D(8, 3, padding="same", activation="relu")(inp)
    x = tf.keras.layers.DepthwiseConv2D(3, strides=2, padding="same", activation="relu6")(x)
    x = tf.keras.layers.Conv2D(16, 1, activation="relu")(x)
    x = tf.keras.layers.MaxPooling2D(2)(x)
    x = tf.keras.layers.AveragePooling2D(4)(x)
    x = tf.keras.layers.Flatten()(x)
    out = tf.keras.layers.Dense(CLASSES, activation="softmax")(x)
    return tf.keras.Model(inp, out, name="tiny_cnn")


def residual() -> tf.keras.Model:
    inp = tf.keras.Input((SIDE, SIDE, 1), batch_size=1)
    x = tf.keras.layers.Conv2D(8, 3, strides=2, padding="same", activation="relu")(inp)
    h = tf.keras.layers.Conv2D(8, 3, padding="same", activation="relu")(x)
    h = tf.keras.layers.Conv2D(8, 3, padding="same")(h)
    x = tf.keras.layers.ReLU()(tf.keras.layers.Add()([x, h]))
    x = tf.keras.layers.GlobalAveragePooling2D()(x)
    out = tf.keras.layers.Dense(CLASSES, activation="softmax")(x)
    return tf.keras.Model(inp, out, name="residual")


def sine() -> tf.keras.Model:
    inp = tf.keras.Input((1,), batch_size=1)
    x = tf.keras.layers.Dense(16, activation="relu")(inp)
    x = tf.keras.layers.Dense(16, activation="relu")(x)
    return tf.keras.Model(inp, tf.keras.layers.Dense(1)(x), name="sine")


def train_classifier(model: tf.keras.Model, seed: int) -> float:
    rng = np.random.default_rng(seed)
    x, y = patterns(rng, 2000)
    model.compile(optimizer=tf.keras.optimizers.Adam(0.01), loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    model.fit(x, y, batch_size=32, epochs=6, verbose=0)
    xt, yt = patterns(rng, 400)
    return float(model.evaluate(xt, yt, batch_size=32, verbose=0)[1])


def to_int8(model: tf.keras.Model, seed: int) -> bytes:
    """Full-integer conversion: int8 weights, activations, input and output."""
    rng = np.random.default_rng(seed)
    calib, _ = patterns(rng, 100)

    def representative():
        for img in calib:
            yield [img[None]]

    conv = tf.lite.TFLiteConverter.from_keras_model(model)
    conv.optimizations = [tf.lite.Optimize.DEFAULT]
    conv.representative_dataset = representative
    conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    conv.inference_input_type = tf.int8
    conv.inference_output_type = tf.int8
    return conv.convert()


def main() -> None:
    tf.keras.utils.set_random_seed(0)
    tf.config.experimental.enable_op_determinism()
    for name, build in (("tiny_cnn_int8", tiny_cnn), ("residual_int8", residual)):
        model = build()
        accuracy = train_classifier(model, seed=1)
        data = to_int8(model, seed=2)
        (HERE / f"{name}.tflite").write_bytes(data)
        print(f"{name}.tflite: {len(data)} bytes, float accuracy {accuracy:.2f}")

    model = sine()
    rng = np.random.default_rng(3)
    x = rng.uniform(0, 2 * np.pi, size=(2000, 1)).astype(np.float32)
    y = np.sin(x) + rng.normal(0, 0.05, size=x.shape).astype(np.float32)
    model.compile(optimizer="adam", loss="mse")
    model.fit(x, y, batch_size=32, epochs=60, verbose=0)
    data = tf.lite.TFLiteConverter.from_keras_model(model).convert()
    (HERE / "sine_float.tflite").write_bytes(data)
    print(f"sine_float.tflite: {len(data)} bytes, mse {model.evaluate(x, y, verbose=0):.4f}")


if __name__ == "__main__":
    main()
