/* STM32F746G-DISCO: USART1 on PA9 (TX) / PB7 (RX), the ST-LINK virtual COM port.
   Clocks stay at the reset default: HSI 16 MHz, APB2 = 16 MHz. */
#include "mf_target.h"

#define RCC_AHB1ENR   0x40023830u
#define RCC_APB2ENR   0x40023844u
#define GPIOA         0x40020000u
#define GPIOB         0x40020400u
#define GPIO_MODER    0x00u
#define GPIO_AFRL     0x20u
#define GPIO_AFRH     0x24u
#define USART1        0x40011000u
#define USART_CR1     (USART1 + 0x00u)
#define USART_BRR     (USART1 + 0x0Cu)
#define USART_ISR     (USART1 + 0x1Cu)
#define USART_ICR     (USART1 + 0x20u)
#define USART_RDR     (USART1 + 0x24u)
#define USART_TDR     (USART1 + 0x28u)
#define CR1_UE        (1u << 0)
#define CR1_RE        (1u << 2)
#define CR1_TE        (1u << 3)
#define ISR_ORE       (1u << 3)
#define ISR_RXNE      (1u << 5)
#define ISR_TXE       (1u << 7)
#define PCLK2_HZ      16000000u
#define AF7_USART1    7u

static void set_af(uint32_t port, unsigned pin, unsigned af)
{
    MF_REG32(port + GPIO_MODER) = (MF_REG32(port + GPIO_MODER) & ~(3u << (2 * pin))) | (2u << (2 * pin));
    uint32_t afr = port + (pin < 8 ? GPIO_AFRL : GPIO_AFRH);
    unsigned shift = 4 * (pin % 8);
    MF_REG32(afr) = (MF_REG32(afr) & ~(0xFu << shift)) | (af << shift);
}

void mf_uart_init(void)
{
    MF_REG32(RCC_AHB1ENR) |= (1u << 0) | (1u << 1); /* GPIOA, GPIOB */
    MF_REG32(RCC_APB2ENR) |= 1u << 4;               /* USART1 */
    (void)MF_REG32(RCC_APB2ENR);                    /* let the enables settle */
    set_af(GPIOA, 9, AF7_USART1);
    set_af(GPIOB, 7, AF7_USART1);
    MF_REG32(USART_CR1) = 0;
    MF_REG32(USART_BRR) = (PCLK2_HZ + MF_UART_BAUD / 2) / MF_UART_BAUD;
    MF_REG32(USART_CR1) = CR1_UE | CR1_TE | CR1_RE;
}

void mf_uart_putc(uint8_t c)
{
    while (!(MF_REG32(USART_ISR) & ISR_TXE)) {
    }
    MF_REG32(USART_TDR) = c;
}

uint8_t mf_uart_getc(void)
{
    while (!(MF_REG32(USART_ISR) & ISR_RXNE)) {
        if (MF_REG32(USART_ISR) & ISR_ORE) {
            MF_REG32(USART_ICR) = ISR_ORE; /* an overrun blocks RXNE until cleared */
        }
    }
    return (uint8_t)MF_REG32(USART_RDR);
}
