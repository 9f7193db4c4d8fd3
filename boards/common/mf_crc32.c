/* Table-less CRC-32: 8 shifts per byte keep flash use tiny (micro:bit has 256 KiB). */
#include "mf_crc32.h"

uint32_t mf_crc32_update(uint32_t crc, uint8_t byte)
{
    crc ^= byte;
    for (int bit = 0; bit < 8; bit++) {
        uint32_t mask = -(crc & 1u);
        crc = (crc >> 1) ^ (0xEDB88320u & mask);
    }
    return crc;
}
