/* Classify one test vector with a microfuse-generated model and print the result on UART0.
 *
 * The model library comes from `microfuse build MODEL -o build/model --name model`: model.h
 * declares model_input(), model_invoke(), model_output() and the MODEL_* macros used below. */
#include <stdint.h>

#include "model.h"
#include "test_input.h"  /* const float test_input[TEST_INPUT_ELEMENTS]: real-valued features */

#if MODEL_INPUTS != 1 || MODEL_OUTPUTS != 1
#error "this example expects a model with one input and one output"
#endif
#if TEST_INPUT_ELEMENTS != MODEL_INPUT0_ELEMENTS
#error "test_input.h does not match the model's input size: make INPUT=your_input.npy"
#endif

/* CMSDK APB UART0 of the MPS2 board. */
#define UART_DATA (*(volatile uint32_t *)0x40004000u)
#define UART_STATE (*(volatile uint32_t *)0x40004004u)
#define UART_CTRL (*(volatile uint32_t *)0x40004008u)
#define UART_BAUDDIV (*(volatile uint32_t *)0x40004010u)

static void uart_init(void)
{
    UART_BAUDDIV = 25000000u / 115200u;  /* 25 MHz peripheral clock */
    UART_CTRL = 1u;                      /* TX enable */
}

static void put_char(char c)
{
    while (UART_STATE & 1u) { /* TX buffer full */
    }
    UART_DATA = (uint32_t)c;
}

static void put_str(const char *s)
{
    while (*s) {
        put_char(*s++);
    }
}

static void put_int(long v)
{
    char digits[12];
    int n = 0;
    unsigned long u = v < 0 ? 0ul - (unsigned long)v : (unsigned long)v;
    if (v < 0) {
        put_char('-');
    }
    do {
        digits[n++] = (char)('0' + u % 10u);
        u /= 10u;
    } while (u);
    while (n) {
        put_char(digits[--n]);
    }
}

/* real -> int8 with the input's scale and zero point: q = round(x / scale) + zero_point, clamped. */
static int8_t quantize(float x)
{
    float q = x / MODEL_INPUT0_SCALE;
    long r = (long)(q < 0.0f ? q - 0.5f : q + 0.5f) + MODEL_INPUT0_ZERO_POINT;
    return (int8_t)(r < -128 ? -128 : r > 127 ? 127 : r);
}

int main(void)
{
    uart_init();

    /* The input lives inside the arena: write it in place, no copy. */
    model_input0_t *in = (model_input0_t *)model_input(0);
    for (unsigned i = 0; i < MODEL_INPUT0_ELEMENTS; i++) {
        in[i] = quantize(test_input[i]);
    }

    if (model_invoke() != 0) {
        put_str("model_invoke failed\n");
        return 1;
    }

    /* The output also lives in the arena: read it before the next invoke. */
    const model_output0_t *out = (const model_output0_t *)model_output(0);
    unsigned best = 0;
    put_str("scores:");
    for (unsigned i = 0; i < MODEL_OUTPUT0_ELEMENTS; i++) {
        put_char(' ');
        put_int(out[i]);
        if (out[i] > out[best]) {
            best = i;
        }
    }
    /* int8 -> real: (q - zero_point) * scale; printed in thousandths (no printf float needed). */
    float p = (float)(out[best] - MODEL_OUTPUT0_ZERO_POINT) * MODEL_OUTPUT0_SCALE;
    put_str("\ntop class: ");
    put_int((long)best);
    put_str(" (score ");
    put_int((long)(p * 1000.0f + 0.5f));
    put_str("/1000)\n");
    return 0;
}
