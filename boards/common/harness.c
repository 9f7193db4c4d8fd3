/* Firmware main loop: receive framed requests on the UART, run the model, answer with outputs and ticks. */
/* Size, not speed: the protocol loop runs outside the timed invoke, and its flash counts in every
 * firmware's figure. */
#pragma GCC optimize("Os")
#include <stddef.h>
#include <stdint.h>
#include "mf_crc32.h"
#include "mf_glue.h"
#include "mf_protocol.h"
#include "mf_target.h"

static uint32_t tx_crc;

#ifdef MF_TRACE
/* The library calls mf_trace() after every kernel call (NAME.c, MF_TRACE_CALL): keep the
 * timer there, so TRACE can answer per-call ticks. Costs a few instructions per call. */
#define MF_MAX_TRACE 256
static uint32_t trace_ticks[MF_MAX_TRACE + 1];
static uint32_t trace_calls;

void mf_trace(int call, const void *data, size_t bytes);

void mf_trace(int call, const void *data, size_t bytes)
{
    (void)data;
    (void)bytes;
    if (call >= 0 && call < MF_MAX_TRACE) {
        trace_ticks[call + 1] = mf_timer_ticks();
        trace_calls = (uint32_t)call + 1;
    }
}
#endif
static volatile uint8_t current_cmd;

/* Stack painting, for an INVOKE with MF_FLAG_STACK: the words from the lowest address the stack
 * may reach up to the stack pointer get a pattern; after the invoke, the lowest changed word is
 * the deepest it reached. Interrupts are masked for that invoke, so the figure is the model's
 * stack alone, without the SysTick frame mf_timer_align's interrupt may push at any depth. */
extern uint32_t _sstack;
#define MF_STACK_PATTERN 0x5AC3A53Cu
static uint32_t stack_used;

static inline __attribute__((always_inline)) uint32_t *stack_pointer(void)
{
    uint32_t *sp;
    __asm volatile("mov %0, sp" : "=r"(sp));
    return sp;
}

/* volatile: a plain loop may become a memset call, whose own frame lies in the painted words */
static inline __attribute__((always_inline)) void paint_stack(uint32_t *top)
{
    for (volatile uint32_t *w = &_sstack; w < top; w++) {
        *w = MF_STACK_PATTERN;
    }
}

static uint32_t stack_depth(const uint32_t *top)
{
    const volatile uint32_t *w = &_sstack;
    while (w < top && *w == MF_STACK_PATTERN) {
        w++;
    }
    return (uint32_t)((const uint8_t *)top - (const uint8_t *)w);
}

static void put_byte(uint8_t b)
{
    tx_crc = mf_crc32_update(tx_crc, b);
    mf_uart_putc(b);
}

static void put_u32(uint32_t v)
{
    for (int i = 0; i < 4; i++) {
        put_byte((uint8_t)(v >> (8 * i)));
    }
}

static void put_bytes(const uint8_t *p, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        put_byte(p[i]);
    }
}

static void begin_response(uint8_t status, uint8_t cmd, int32_t rc, uint32_t ticks, uint32_t len)
{
    tx_crc = MF_CRC32_INIT;
    put_byte(MF_RSP_MAGIC0);
    put_byte(MF_RSP_MAGIC1);
    put_byte(status);
    put_byte(cmd);
    put_u32((uint32_t)rc);
    put_u32(ticks);
    put_u32(len);
}

static void end_response(void)
{
    uint32_t crc = MF_CRC32_FINAL(tx_crc);
    for (int i = 0; i < 4; i++) {
        mf_uart_putc((uint8_t)(crc >> (8 * i)));
    }
}

static void respond_status(uint8_t status, uint8_t cmd)
{
    begin_response(status, cmd, 0, 0, 0);
    end_response();
}

/* ---- receiving ---- */

#if defined(MF_SEMIHOSTING)
/* Under QEMU a silent host means it is gone (killed, crashed): exit rather than spin forever.
 * Bounded by polls, not by the timer: the cycle model marks every mf_timer_ticks() call as a
 * bench boundary (microfuse/targets/cycles.py), so only the timed path may read the timer.
 * About ten instructions a poll: the default is minutes of emulation, a backstop behind the
 * host killing QEMU's process group. */
#ifndef MF_IDLE_EXIT_POLLS
#define MF_IDLE_EXIT_POLLS (1u << 30)
#endif
static uint8_t recv_byte(void)
{
    for (uint32_t polls = 0; !mf_uart_rx_ready(); polls++) {
        if (polls > MF_IDLE_EXIT_POLLS) {
            mf_exit(MF_EXIT_IDLE);
        }
    }
    return mf_uart_getc();
}
#else
#define recv_byte mf_uart_getc
#endif

static uint32_t rx_crc;

static uint8_t get_byte(void)
{
    uint8_t b = recv_byte();
    rx_crc = mf_crc32_update(rx_crc, b);
    return b;
}

static uint32_t get_u32(void)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        v |= (uint32_t)get_byte() << (8 * i);
    }
    return v;
}

/* Skips bytes until the request magic: this is how the firmware resyncs. */
static void wait_magic(void)
{
    uint8_t prev = 0;
    for (;;) {
        uint8_t c = recv_byte();
        if (prev == MF_REQ_MAGIC0 && c == MF_REQ_MAGIC1) {
            break;
        }
        prev = c;
    }
    rx_crc = mf_crc32_update(mf_crc32_update(MF_CRC32_INIT, MF_REQ_MAGIC0), MF_REQ_MAGIC1);
}

/* Reads the trailing CRC and says whether it matches what was received. */
static int crc_ok(void)
{
    uint32_t expect = MF_CRC32_FINAL(rx_crc);
    uint32_t got = 0;
    for (int i = 0; i < 4; i++) {
        got |= (uint32_t)recv_byte() << (8 * i);
    }
    return got == expect;
}

static uint32_t total_bytes(int count, unsigned (*bytes)(int))
{
    uint32_t total = 0;
    for (int i = 0; i < count; i++) {
        total += bytes(i);
    }
    return total;
}

/* ---- commands ---- */

static void do_hello(void)
{
    const char *name = mf_model_name();
    uint32_t name_len = 0;
    while (name[name_len]) {
        name_len++;
        __asm__ volatile(""); /* else gcc makes this loop a call to newlib's strlen: 220 B of flash */
    }
    int n_in = mf_model_inputs(), n_out = mf_model_outputs();
    uint32_t len = 16u + 4u * (uint32_t)(n_in + n_out) + name_len;
    begin_response(MF_STATUS_OK, MF_CMD_HELLO, 0, 0, len);
    put_u32(MF_PROTOCOL_VERSION);
    put_u32(mf_model_arena_bytes());
    put_u32((uint32_t)n_in);
    put_u32((uint32_t)n_out);
    for (int i = 0; i < n_in; i++) {
        put_u32(mf_model_input_bytes(i));
    }
    for (int i = 0; i < n_out; i++) {
        put_u32(mf_model_output_bytes(i));
    }
    put_bytes((const uint8_t *)name, name_len);
    end_response();
}

static void do_invoke(uint32_t len, uint8_t flags)
{
    int n_in = mf_model_inputs(), n_out = mf_model_outputs();
    if (len != total_bytes(n_in, mf_model_input_bytes)) {
        respond_status(MF_STATUS_BAD_LENGTH, MF_CMD_INVOKE);
        return;
    }
    /* Stream straight into the model's input tensors: no staging buffer. */
    for (int i = 0; i < n_in; i++) {
        uint8_t *dst = (uint8_t *)mf_model_input(i);
        for (uint32_t k = 0, n = mf_model_input_bytes(i); k < n; k++) {
            dst[k] = get_byte();
        }
    }
    if (!crc_ok()) {
        respond_status(MF_STATUS_BAD_CRC, MF_CMD_INVOKE);
        return;
    }
    uint32_t *top = stack_pointer();
    if (flags & MF_FLAG_STACK) {
        paint_stack(top);
        __asm volatile("cpsid i" ::: "memory");
    }
#ifdef MF_ICOUNT_ALIGN
    else {
        mf_timer_align();
    }
#endif
    uint32_t start = mf_timer_ticks();
#ifdef MF_TRACE
    trace_ticks[0] = start;
    trace_calls = 0;
#endif
    int rc = mf_model_invoke();
    uint32_t ticks = mf_timer_ticks() - start;
    if (flags & MF_FLAG_STACK) {
        __asm volatile("cpsie i" ::: "memory");
        stack_used = stack_depth(top);
    }
    begin_response(MF_STATUS_OK, MF_CMD_INVOKE, rc, ticks, total_bytes(n_out, mf_model_output_bytes));
    for (int i = 0; i < n_out; i++) {
        put_bytes((const uint8_t *)mf_model_output(i), mf_model_output_bytes(i));
    }
    end_response();
}

#ifdef MF_TRACE
static void do_trace(void)
{
    begin_response(MF_STATUS_OK, MF_CMD_TRACE, 0, 0, 4u * (trace_calls + 1u));
    for (uint32_t i = 0; i <= trace_calls; i++) {
        put_u32(trace_ticks[i]);
    }
    end_response();
}
#endif

static void do_simple(uint8_t cmd, uint32_t len)
{
    if (len != 0) {
        respond_status(MF_STATUS_BAD_LENGTH, cmd);
    } else if (!crc_ok()) {
        respond_status(MF_STATUS_BAD_CRC, cmd);
    } else if (cmd == MF_CMD_HELLO) {
        do_hello();
    } else if (cmd == MF_CMD_STACK) {
        begin_response(MF_STATUS_OK, cmd, 0, 0, 4u);
        put_u32(stack_used);
        end_response();
#ifdef MF_TRACE
    } else if (cmd == MF_CMD_TRACE) {
        do_trace();
#endif
    } else if (cmd == MF_CMD_EXIT) {
        respond_status(MF_STATUS_OK, cmd);
        mf_exit(0);
    } else {
        respond_status(MF_STATUS_BAD_COMMAND, cmd);
    }
}

void mf_on_fault(void)
{
    respond_status(MF_STATUS_FAULT, current_cmd);
    mf_exit(MF_EXIT_HARDFAULT);
}

int main(void)
{
    mf_uart_init();
    mf_timer_init();
    for (;;) {
        wait_magic();
        uint8_t cmd = get_byte();
        uint8_t flags = get_byte();
        uint32_t len = get_u32();
        current_cmd = cmd;
        if (cmd == MF_CMD_INVOKE) {
            do_invoke(len, flags);
        } else if (cmd == MF_CMD_HELLO || cmd == MF_CMD_EXIT || cmd == MF_CMD_TRACE || cmd == MF_CMD_STACK) {
            do_simple(cmd, len);
        } else {
            respond_status(MF_STATUS_BAD_COMMAND, cmd);
        }
        current_cmd = 0;
    }
}
