//go:build amd64 && !purego

#include "textflag.h"

// func plainBlocks(p []byte) bool
//
// A byte is not plain when its high bit is set (not ASCII) or it is ESC:
// a round ORs the 64 bytes with their comparisons to ESC (0xff where
// equal) and tests the high bits of the result.
TEXT ·plainBlocks(SB), NOSPLIT, $0-25
	MOVQ p_base+0(FP), SI
	MOVQ p_len+8(FP), CX
	SHRQ $6, CX
	MOVL $0x1b, AX
	MOVQ AX, X0
	VPBROADCASTB X0, Y0

loop:
	TESTQ CX, CX
	JZ    plain
	VMOVDQU  (SI), Y1
	VMOVDQU  32(SI), Y2
	VPCMPEQB Y0, Y1, Y3
	VPCMPEQB Y0, Y2, Y4
	VPOR     Y1, Y2, Y5
	VPOR     Y3, Y4, Y6
	VPOR     Y5, Y6, Y5
	VPMOVMSKB Y5, AX
	TESTL    AX, AX
	JNZ      notplain
	ADDQ     $64, SI
	DECQ     CX
	JMP      loop

plain:
	VZEROUPPER
	MOVB $1, ret+24(FP)
	RET

notplain:
	VZEROUPPER
	MOVB $0, ret+24(FP)
	RET
