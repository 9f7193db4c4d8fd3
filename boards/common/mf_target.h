/* What the harness needs from a board: a byte UART, a tick counter, an exit. */
#ifndef MF_TARGET_H
#define MF_TARGET_H
#include <stdint.h>

void mf_uart_init(void);
void mf_uart_putc(uint8_t c);
uint8_t mf_uart_getc(void);       /* blocks until a byte arrives */
int mf_uart_rx_ready(void);       /* a byte is waiting (QEMU boards' UARTs: the idle watchdog) */

void mf_timer_init(void);
uint32_t mf_timer_ticks(void);    /* monotonic up-counter; differences wrap mod 2^32 */
void mf_timer_align(void);        /* waits for a fixed tick phase (QEMU boards, MF_ICOUNT_ALIGN) */

/* Ends the program: under QEMU via semihosting (QEMU exits with `code`),
   on a board without a debugger it parks the CPU. */
void mf_exit(int code) __attribute__((noreturn));

/* Called by the HardFault handler (harness.c). */
void mf_on_fault(void) __attribute__((noreturn));

#define MF_EXIT_HARDFAULT 125
#define MF_EXIT_IDLE 124          /* QEMU: the host said nothing for MF_IDLE_EXIT_POLLS polls (harness.c) */

#define MF_REG32(addr) (*(volatile uint32_t *)(uintptr_t)(addr))

#endif
