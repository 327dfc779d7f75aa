//go:build amd64 && !purego

#include "textflag.h"

// GRIDROUND sets the flags for KORTESTW of the places of A (the entries
// of eight grid places' pairs) that let a keyword through, B holding the
// entries of the eight places after them: ZF is clear when one does.
#define GRIDROUND(A, B) \
	VALIGNQ  $1, A, B, Z4 \
	VALIGNQ  $2, A, B, Z5 \
	VPSRLQ   $21, Z4, Z4 \
	VPSRLQ   $42, Z5, Z5 \
	VPANDQ   A, Z4, Z4 \
	VPANDQ   Z5, Z4, Z4 \
	VPTESTMQ Z11, Z4, K2 \
	KORTESTW K2, K2

// func gridRounds512(tab *[65536]uint64, p []byte, e int) int
//
// A round looks at the eight grid places e, e+2 … e+14: Z2 holds the
// table entries of their folded pairs (A), Z3 those of the eight pairs
// after them (B). A place lets a keyword through where
// A & next(A)>>21 & next(next(A))>>42 has one of the 21 low bits set,
// next being the entries one place further (VALIGNQ over B:A). The loop
// does two rounds an iteration, with two independent gathers (Z3 and Z8).
TEXT ·gridRounds512(SB), NOSPLIT, $0-48
	MOVQ tab+0(FP), R8
	MOVQ p_base+8(FP), SI
	MOVQ p_len+16(FP), DX
	MOVQ e+32(FP), CX
	LEAQ 48(CX), AX
	CMPQ AX, DX
	JGT  out

	MOVQ         $0x2020202020202020, AX
	VPBROADCASTQ AX, Y10                 // the fold of foldPair
	MOVQ         $0x1fffff, AX
	VPBROADCASTQ AX, Z11                 // the first pair's bucket bits
	VMOVDQU      (SI)(CX*1), X0
	VPOR         X10, X0, X0
	VPMOVZXWQ    X0, Z1
	KXNORB       K1, K1, K1
	VPGATHERQQ   (R8)(Z1*8), K1, Z2

loop:
	// Two rounds need the bytes up to e+48.
	LEAQ         48(CX), AX
	CMPQ         AX, DX
	JGT          done
	VMOVDQU      16(SI)(CX*1), Y0
	VPOR         Y10, Y0, Y0
	VEXTRACTI128 $1, Y0, X6
	VPMOVZXWQ    X0, Z1
	VPMOVZXWQ    X6, Z7
	KXNORB       K1, K1, K1
	KXNORB       K3, K3, K3
	// A gather merges into its target: cleared, it does not wait for
	// the round before.
	VPXORQ       Z3, Z3, Z3
	VPXORQ       Z8, Z8, Z8
	VPGATHERQQ   (R8)(Z1*8), K1, Z3
	VPGATHERQQ   (R8)(Z7*8), K3, Z8

	// The round at e: A = Z2, B = Z3.
	GRIDROUND(Z2, Z3)
	JNZ done

	// The round at e+16: A = Z3, B = Z8.
	GRIDROUND(Z3, Z8)
	JNZ second
	VMOVDQA64 Z8, Z2
	ADDQ      $32, CX
	JMP       loop

second:
	ADDQ $16, CX

done:
	VZEROUPPER

out:
	MOVQ CX, ret+40(FP)
	RET
