/* retoucher.S - toucher.S that never stops: the boot vCPU writes one word
 * into every 4 KiB page of RAM above 2 MiB, then starts over, forever, so
 * every page of the guest stays hot (scenario 13-kmem-spill: AutoNUMA's
 * tiering mode promotes hot pages from a slow node).  A multiboot (v1)
 * image for QEMU's -kernel, as toucher.S. */
    .code32
    .section .text
    .globl _start
    .align 4
multiboot_header:
    .long 0x1BADB002                    /* magic */
    .long 0x00000002                    /* flags: give us the memory sizes */
    .long -(0x1BADB002 + 0x00000002)    /* checksum */
_start:
    cli
    movl 8(%ebx), %ecx                  /* mem_upper: KiB above 1 MiB */
    shll $10, %ecx
    addl $0x100000, %ecx                /* end of contiguous RAM */
    xorl %eax, %eax                     /* the pass number, written */
1:  movl $0x200000, %edi
    incl %eax
2:  movl %eax, (%edi)
    addl $4096, %edi
    cmpl %ecx, %edi
    jb 2b
    jmp 1b
