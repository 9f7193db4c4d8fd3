/* The default test vector for ../tiny_cnn_int8.tflite: a 16x16 grey image with a vertical bar
 * (class 1 of the four the model knows: horizontal bar, vertical bar, diagonal, blob).
 * `make INPUT=x.npy` replaces it with a header made from a float32 .npy (npy_to_c.py). */
#ifndef TEST_INPUT_H
#define TEST_INPUT_H

#define TEST_INPUT_ELEMENTS 256
#define _ 0.0f
#define X 1.0f
static const float test_input[TEST_INPUT_ELEMENTS] = {
    _, _, _, _, _, _, _, X, X, _, _, _, _, _, _, _,
    _, _, _, _, _, _, _, X, X, _, _, _, _, _, _, _,
    _, _, _, _, _, _, _, X, X, _, _, _, _, _, _, _,
    _, _, _, _, _, _, _, X, X, _, _, _, _, _, _, _,
    _, _, _, _, _, _, _, X, X, _, _, _, _, _, _, _,
    _, _, _, _, _, _, _, X, X, _, _, _, _, _, _, _,
    _, _, _, _, _, _, _, X, X, _, _, _, _, _, _, _,
    _, _, _, _, _, _, _, X, X, _, _, _, _, _, _, _,
    _, _, _, _, _, _, _, X, X, _, _, _, _, _, _, _,
    _, _, _, _, _, _, _, X, X, _, _, _, _, _, _, _,
    _, _, _, _, _, _, _, X, X, _, _, _, _, _, _, _,
    _, _, _, _, _, _, _, X, X, _, _, _, _, _, _, _,
    _, _, _, _, _, _, _, X, X, _, _, _, _, _, _, _,
    _, _, _, _, _, _, _, X, X, _, _, _, _, _, _, _,
    _, _, _, _, _, _, _, X, X, _, _, _, _, _, _, _,
    _, _, _, _, _, _, _, X, X, _, _, _, _, _, _, _,
};
#undef _
#undef X

#endif
