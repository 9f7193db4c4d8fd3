/* bench/speed.py's profiling firmware: one invoke with per-call timestamps and a painted stack.
 *
 * Built with the model library compiled with -DMF_TRACE: NAME.c calls mf_trace() after every
 * kernel call, which stores the timer (one tick = 40 instructions under QEMU -icount shift=0 at
 * 25 MHz). The stack below main's frame is painted with a pattern before invoke() and scanned
 * after it: the deepest overwritten word gives invoke's peak stack, in bytes below the stack
 * pointer at the call of invoke(). Results go out over semihosting SYS_WRITE0 as "key value" lines, then the firmware
 * exits with code 0. The input is a fixed pseudo-random byte pattern. */
#include <stdint.h>
#include "mf_glue.h"
#include "mf_target.h"

#define MAX_CALLS 512
#define PAINT 0xC5C5C5C5u
#define PAINT_BYTES 16384u

static uint32_t marks[MAX_CALLS + 1];
static int last_call = -1;

void mf_trace(int call, const void *data, unsigned bytes);

void mf_trace(int call, const void *data, unsigned bytes)
{
    (void)data;
    (void)bytes;
    if (call < MAX_CALLS) {
        marks[call + 1] = mf_timer_ticks();
        last_call = call;
    }
}

static void semi_write0(const char *s)
{
    register uint32_t r0 __asm__("r0") = 0x04u;
    register const char *r1 __asm__("r1") = s;
    __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
}

static void print_kv(const char *key, int index, uint32_t value)
{
    char line[64];
    char digits[12];
    int n = 0, d = 0;
    while (*key && n < 40) {
        line[n++] = *key++;
    }
    if (index >= 0) {
        uint32_t v = (uint32_t)index;
        line[n++] = ' ';
        do { digits[d++] = (char)('0' + v % 10u); v /= 10u; } while (v);
        while (d) { line[n++] = digits[--d]; }
    }
    line[n++] = ' ';
    do { digits[d++] = (char)('0' + value % 10u); value /= 10u; } while (value);
    while (d) { line[n++] = digits[--d]; }
    line[n++] = '\n';
    line[n] = 0;
    semi_write0(line);
}

void mf_on_fault(void)
{
    semi_write0("fault\n");
    mf_exit(MF_EXIT_HARDFAULT);
}

/* Paint, run, scan: kept out of line so that its stack pointer at the call of invoke() is the
 * reference point (TFLM's figures are measured below the caller's stack pointer too). */
static __attribute__((noinline)) uint32_t run_painted(void)
{
    uint32_t *sp, *bottom, *p;
    volatile uint32_t *q;
    __asm__ volatile("mov %0, sp" : "=r"(sp)); /* constant through this function: no alloca */
    bottom = sp - PAINT_BYTES / 4u;
    /* volatile: a memset call here would paint over its own frame */
    for (q = bottom; q < sp; q++) {
        *q = PAINT;
    }
    mf_timer_align();
    marks[0] = mf_timer_ticks();
    if (mf_model_invoke() != 0) {
        semi_write0("invoke failed\n");
        mf_exit(2);
    }
    for (p = bottom; p < sp && *p == PAINT; p++) {
    }
    return (uint32_t)((uintptr_t)sp - (uintptr_t)p);
}

int main(void)
{
    uint32_t seed = 12345u;
    int i;
    mf_timer_init();
    for (i = 0; i < mf_model_inputs(); i++) {
        uint8_t *x = (uint8_t *)mf_model_input(i);
        unsigned k;
        for (k = 0; k < mf_model_input_bytes(i); k++) {
            seed = seed * 1103515245u + 12345u;
            x[k] = (uint8_t)(seed >> 16);
        }
    }
    {
        uint32_t stack = run_painted();
        print_kv("calls", -1, (uint32_t)(last_call + 1));
        for (i = 0; i <= last_call && i < MAX_CALLS; i++) {
            print_kv("call", i, marks[i + 1] - marks[i]);
        }
        print_kv("stack", -1, stack);
    }
    semi_write0("end\n");
    return 0;
}
