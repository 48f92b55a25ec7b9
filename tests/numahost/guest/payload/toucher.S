/* toucher.S - a nested guest's whole "operating system": a multiboot (v1)
 * image that QEMU loads with -kernel.  The boot vCPU writes one word into
 * every 4 KiB page of RAM above 2 MiB, then halts; the other vCPUs never
 * start.  Scenario 3-memnode-locality uses it to see where pages of each
 * guest NUMA cell land when one vCPU first-touches all of them (lazy
 * allocation), as a guest kernel's boot CPU does with much of its memory. */
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
    movl $0x200000, %edi
1:  movl $0x5a5a5a5a, (%edi)
    addl $4096, %edi
    cmpl %ecx, %edi
    jb 1b
2:  hlt
    jmp 2b
