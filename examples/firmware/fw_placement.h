/*
 * examples/firmware/fw_placement.h - where the firmware example puts its
 * memory, as a firmware build would (run.sh passes it with -include).
 *
 * The shared pools go to sections that the linker script maps to SRAM and
 * DRAM without load image (NOLOAD, like .bss: nothing to copy at boot);
 * the embedded weights to a read-only section mapped to flash.  On the
 * host the default linker script puts .bss.* in .bss and .rodata.* in
 * .rodata, which run.sh checks with nm.  A firmware linker script:
 *
 *   .sram_arena (NOLOAD) : ALIGN(64) { *(.bss.fw_sram) } > SRAM
 *   .dram_arena (NOLOAD) : ALIGN(64) { *(.bss.fw_dram) } > DRAM
 *   .weights : ALIGN(64) { *(.rodata.fw_weights) } > FLASH
 */
#define PLANWRAP_SHARED_POOL_CPU_SRAM_ATTR                                     \
    __attribute__((section(".bss.fw_sram"), aligned(64)))
#define PLANWRAP_SHARED_POOL_CPU_DRAM_ATTR                                     \
    __attribute__((section(".bss.fw_dram"), aligned(64)))
#define kws_WEIGHTS_ATTR                                                       \
    __attribute__((section(".rodata.fw_weights"), aligned(64)))
#define ad_WEIGHTS_ATTR                                                        \
    __attribute__((section(".rodata.fw_weights"), aligned(64)))
