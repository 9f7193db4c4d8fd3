/* NUCLEO-L4R5ZI: LPUART1 on PG7 (TX) / PG8 (RX), AF8, the ST-LINK virtual COM port.
   Clocks stay at the reset default: MSI 4 MHz, PCLK1 = 4 MHz feeds LPUART1. */
#include "mf_target.h"

#define RCC_AHB2ENR    0x4002104Cu
#define RCC_APB1ENR1   0x40021058u
#define RCC_APB1ENR2   0x4002105Cu
#define PWR_CR2        0x40007004u
#define PWR_CR2_IOSV   (1u << 9)   /* PG2..PG15 are powered from VDDIO2: declare it valid */
#define GPIOG          0x48001800u
#define GPIO_MODER     0x00u
#define GPIO_AFRL      0x20u
#define GPIO_AFRH      0x24u
#define LPUART1        0x40008000u
#define LPUART_CR1     (LPUART1 + 0x00u)
#define LPUART_BRR     (LPUART1 + 0x0Cu)
#define LPUART_ISR     (LPUART1 + 0x1Cu)
#define LPUART_ICR     (LPUART1 + 0x20u)
#define LPUART_RDR     (LPUART1 + 0x24u)
#define LPUART_TDR     (LPUART1 + 0x28u)
#define CR1_UE         (1u << 0)
#define CR1_RE         (1u << 2)
#define CR1_TE         (1u << 3)
#define ISR_ORE        (1u << 3)
#define ISR_RXNE       (1u << 5)
#define ISR_TXE        (1u << 7)
#define PCLK1_HZ       4000000u
#define AF8_LPUART1    8u

static void set_af(uint32_t port, unsigned pin, unsigned af)
{
    MF_REG32(port + GPIO_MODER) = (MF_REG32(port + GPIO_MODER) & ~(3u << (2 * pin))) | (2u << (2 * pin));
    uint32_t afr = port + (pin < 8 ? GPIO_AFRL : GPIO_AFRH);
    unsigned shift = 4 * (pin % 8);
    MF_REG32(afr) = (MF_REG32(afr) & ~(0xFu << shift)) | (af << shift);
}

void mf_uart_init(void)
{
    MF_REG32(RCC_APB1ENR1) |= 1u << 28;  /* PWR */
    (void)MF_REG32(RCC_APB1ENR1);
    MF_REG32(PWR_CR2) |= PWR_CR2_IOSV;
    MF_REG32(RCC_AHB2ENR) |= 1u << 6;    /* GPIOG */
    MF_REG32(RCC_APB1ENR2) |= 1u << 0;   /* LPUART1 */
    (void)MF_REG32(RCC_APB1ENR2);
    set_af(GPIOG, 7, AF8_LPUART1);
    set_af(GPIOG, 8, AF8_LPUART1);
    MF_REG32(LPUART_CR1) = 0;
    /* LPUART: BRR = 256 * f / baud (8889 for 115200 at 4 MHz, within 0x300..0xFFFFF). */
    MF_REG32(LPUART_BRR) = (uint32_t)(((uint64_t)PCLK1_HZ * 256u + MF_UART_BAUD / 2) / MF_UART_BAUD);
    MF_REG32(LPUART_CR1) = CR1_UE | CR1_TE | CR1_RE;
}

void mf_uart_putc(uint8_t c)
{
    while (!(MF_REG32(LPUART_ISR) & ISR_TXE)) {
    }
    MF_REG32(LPUART_TDR) = c;
}

uint8_t mf_uart_getc(void)
{
    while (!(MF_REG32(LPUART_ISR) & ISR_RXNE)) {
        if (MF_REG32(LPUART_ISR) & ISR_ORE) {
            MF_REG32(LPUART_ICR) = ISR_ORE;
        }
    }
    return (uint8_t)MF_REG32(LPUART_RDR);
}
