/* Raspberry Pi Pico: RP2040 UART0 (PL011) on GPIO0 (TX) / GPIO1 (RX).
   clk_sys is left on the ring oscillator the boot ROM chose; the UART needs an
   exact clock, so clk_peri alone is switched to the 12 MHz crystal (XOSC). */
#include "mf_target.h"

#define RESETS_RESET       0x4000C000u
#define RESETS_RESET_DONE  0x4000C008u
#define RESETS_CLR         0x3000u           /* atomic bit-clear alias */
#define RESET_IO_BANK0     (1u << 5)
#define RESET_PADS_BANK0   (1u << 8)
#define RESET_UART0        (1u << 22)
#define XOSC_CTRL          0x40024000u
#define XOSC_STATUS        0x40024004u
#define XOSC_STARTUP       0x4002400Cu
#define XOSC_ENABLE_1_15MHZ ((0xFABu << 12) | 0xAA0u)
#define XOSC_STABLE        (1u << 31)
#define XOSC_HZ            12000000u
#define CLK_PERI_CTRL      0x40008048u
#define CLK_PERI_ENABLE    (1u << 11)
#define CLK_PERI_XOSC      (4u << 5)
#define IO_BANK0_CTRL(n)   (0x40014004u + 8u * (n))
#define FUNCSEL_UART       2u
#define UART0              0x40034000u
#define UART_DR            (UART0 + 0x000u)
#define UART_FR            (UART0 + 0x018u)
#define UART_IBRD          (UART0 + 0x024u)
#define UART_FBRD          (UART0 + 0x028u)
#define UART_LCR_H         (UART0 + 0x02Cu)
#define UART_CR            (UART0 + 0x030u)
#define FR_RXFE            (1u << 4)
#define FR_TXFF            (1u << 5)
#define LCR_H_8N1_FIFO     ((3u << 5) | (1u << 4))
#define CR_UARTEN_TXE_RXE  ((1u << 0) | (1u << 8) | (1u << 9))

void mf_uart_init(void)
{
    /* 12 MHz crystal: start-up delay in units of 256 cycles, ~1 ms. */
    MF_REG32(XOSC_STARTUP) = (XOSC_HZ / 1000u + 128u) / 256u;
    MF_REG32(XOSC_CTRL) = XOSC_ENABLE_1_15MHZ;
    while (!(MF_REG32(XOSC_STATUS) & XOSC_STABLE)) {
    }
    MF_REG32(CLK_PERI_CTRL) = CLK_PERI_ENABLE | CLK_PERI_XOSC;

    uint32_t mask = RESET_IO_BANK0 | RESET_PADS_BANK0 | RESET_UART0;
    MF_REG32(RESETS_RESET + RESETS_CLR) = mask;
    while ((MF_REG32(RESETS_RESET_DONE) & mask) != mask) {
    }
    MF_REG32(IO_BANK0_CTRL(0)) = FUNCSEL_UART;
    MF_REG32(IO_BANK0_CTRL(1)) = FUNCSEL_UART;

    /* Divider = clk / (16 * baud) as 16.6 fixed point; LCR_H must be written after it. */
    uint32_t div64 = (4u * XOSC_HZ + MF_UART_BAUD / 2) / MF_UART_BAUD;
    MF_REG32(UART_IBRD) = div64 >> 6;
    MF_REG32(UART_FBRD) = div64 & 63u;
    MF_REG32(UART_LCR_H) = LCR_H_8N1_FIFO;
    MF_REG32(UART_CR) = CR_UARTEN_TXE_RXE;
}

void mf_uart_putc(uint8_t c)
{
    while (MF_REG32(UART_FR) & FR_TXFF) {
    }
    MF_REG32(UART_DR) = c;
}

uint8_t mf_uart_getc(void)
{
    while (MF_REG32(UART_FR) & FR_RXFE) {
    }
    return (uint8_t)MF_REG32(UART_DR);
}
