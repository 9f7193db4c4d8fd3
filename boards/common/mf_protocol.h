/* The framed serial protocol between the host (microfuse/targets/serial_link.py) and the harness.
 *
 * All integers little endian; CRC-32 (zlib) covers every byte of the frame before it.
 * request : 'M' 'q' | cmd u8 | flags u8 | length u32 | payload[length] | crc u32
 * response: 'M' 'r' | status u8 | cmd u8 | rc i32 | ticks u32 | length u32 | payload[length] | crc u32
 *
 * HELLO : no payload -> version u32, arena u32, n_in u32, n_out u32,
 *         input bytes u32[n_in], output bytes u32[n_out], model name (rest).
 * INVOKE: input tensors concatenated -> output tensors concatenated;
 *         rc = the model's invoke() return, ticks = timer ticks around it.
 *         With flags & MF_FLAG_STACK: the stack is painted before and scanned after, with
 *         interrupts masked (the counts of such an invoke are not the timed ones).
 * EXIT  : no payload -> empty OK response, then the firmware ends (QEMU exits 0).
 * TRACE : no payload -> (firmware built with -DMF_TRACE) ticks u32 at the start of the last
 *         invoke, then after each kernel call: u32[calls]. Without MF_TRACE: BAD_COMMAND.
 * STACK : no payload -> u32 bytes of stack the last MF_FLAG_STACK invoke used below the
 *         harness's stack pointer at the call (0: none measured yet).
 * After a HardFault the firmware sends a FAULT response and stops.
 */
#ifndef MF_PROTOCOL_H
#define MF_PROTOCOL_H

#define MF_PROTOCOL_VERSION 1u

#define MF_REQ_MAGIC0 'M'
#define MF_REQ_MAGIC1 'q'
#define MF_RSP_MAGIC0 'M'
#define MF_RSP_MAGIC1 'r'

#define MF_CMD_HELLO  'H'
#define MF_CMD_INVOKE 'I'
#define MF_CMD_EXIT   'X'
#define MF_CMD_TRACE  'T'
#define MF_CMD_STACK  'S'

#define MF_FLAG_STACK 0x01u /* INVOKE: measure the stack */

#define MF_STATUS_OK          0u
#define MF_STATUS_BAD_CRC     1u
#define MF_STATUS_BAD_LENGTH  2u
#define MF_STATUS_BAD_COMMAND 3u
#define MF_STATUS_FAULT       0xFAu

#endif
