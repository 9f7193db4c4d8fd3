/* Nordic nRF51/nRF52 UART (legacy, non-DMA) at 0x40002000; pins from -DMF_UART_TX_PIN/-DMF_UART_RX_PIN. */
#include "mf_target.h"

#define UART_BASE          0x40002000u
#define UART_STARTRX       (UART_BASE + 0x000u)
#define UART_STARTTX       (UART_BASE + 0x008u)
#define UART_RXDRDY        (UART_BASE + 0x108u)
#define UART_TXDRDY        (UART_BASE + 0x11Cu)
#define UART_ENABLE        (UART_BASE + 0x500u)
#define UART_PSELTXD       (UART_BASE + 0x50Cu)
#define UART_PSELRXD       (UART_BASE + 0x514u)
#define UART_RXD           (UART_BASE + 0x518u)
#define UART_TXD           (UART_BASE + 0x51Cu)
#define UART_BAUDRATE      (UART_BASE + 0x524u)
#define ENABLE_UART        4u
#define BAUDRATE_115200    0x01D7E000u

void mf_uart_init(void)
{
    MF_REG32(UART_PSELTXD) = MF_UART_TX_PIN;
    MF_REG32(UART_PSELRXD) = MF_UART_RX_PIN;
    MF_REG32(UART_BAUDRATE) = BAUDRATE_115200;
    MF_REG32(UART_ENABLE) = ENABLE_UART;
    MF_REG32(UART_RXDRDY) = 0;
    MF_REG32(UART_TXDRDY) = 0;
    MF_REG32(UART_STARTTX) = 1;
    MF_REG32(UART_STARTRX) = 1;
}

void mf_uart_putc(uint8_t c)
{
    MF_REG32(UART_TXD) = c;
    while (!MF_REG32(UART_TXDRDY)) {
    }
    MF_REG32(UART_TXDRDY) = 0;
}

int mf_uart_rx_ready(void)
{
    return MF_REG32(UART_RXDRDY) != 0;
}

uint8_t mf_uart_getc(void)
{
    while (!mf_uart_rx_ready()) {
    }
    /* Clear the event before reading: reading RXD lets the next byte in. */
    MF_REG32(UART_RXDRDY) = 0;
    return (uint8_t)MF_REG32(UART_RXD);
}
