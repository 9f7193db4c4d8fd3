/* Arm CMSDK APB UART (MPS2 and MPS3 FPGA images); base address from -DMF_UART_BASE. */
#include "mf_target.h"

#define UART_DATA     (MF_UART_BASE + 0x00u)
#define UART_STATE    (MF_UART_BASE + 0x04u)
#define UART_CTRL     (MF_UART_BASE + 0x08u)
#define UART_BAUDDIV  (MF_UART_BASE + 0x10u)
#define STATE_TXFULL  (1u << 0)
#define STATE_RXFULL  (1u << 1)
#define CTRL_TXEN     (1u << 0)
#define CTRL_RXEN     (1u << 1)

void mf_uart_init(void)
{
    /* The divider must be >= 16 for the UART to run; QEMU does not emulate the rate. */
    MF_REG32(UART_BAUDDIV) = MF_UART_CLOCK_HZ / MF_UART_BAUD;
    MF_REG32(UART_CTRL) = CTRL_TXEN | CTRL_RXEN;
    /* Drain one stale read: without it QEMU's first exchange can stall ~1 s. */
    (void)MF_REG32(UART_DATA);
}

void mf_uart_putc(uint8_t c)
{
    while (MF_REG32(UART_STATE) & STATE_TXFULL) {
    }
    MF_REG32(UART_DATA) = c;
}

int mf_uart_rx_ready(void)
{
    return (MF_REG32(UART_STATE) & STATE_RXFULL) != 0;
}

uint8_t mf_uart_getc(void)
{
    while (!mf_uart_rx_ready()) {
    }
    return (uint8_t)MF_REG32(UART_DATA);
}
