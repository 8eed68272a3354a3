#include "textflag.h"

// func signPlanesPOPCNT(code, planes []uint64) (ones, sum int)
// Requires POPCNT and len(planes) >= 5*len(code): for each word w of code,
// ones += popcount(code[w] & planes[5w]) and sum += Σ_j 2^j
// popcount(code[w] & planes[5w+1+j]), j = 0..3.
TEXT ·signPlanesPOPCNT(SB), NOSPLIT, $0-64
	MOVQ code_base+0(FP), SI
	MOVQ code_len+8(FP), CX
	MOVQ planes_base+24(FP), DI
	XORQ R8, R8
	XORQ R9, R9
	XORQ R10, R10
	XORQ R11, R11
	XORQ R12, R12
	TESTQ CX, CX
	JE   done

loop:
	MOVQ    (SI), AX
	MOVQ    AX, BX
	ANDQ    (DI), BX
	POPCNTQ BX, BX
	ADDQ    BX, R8
	MOVQ    AX, DX
	ANDQ    8(DI), DX
	POPCNTQ DX, DX
	ADDQ    DX, R9
	MOVQ    AX, BX
	ANDQ    16(DI), BX
	POPCNTQ BX, BX
	ADDQ    BX, R10
	MOVQ    AX, DX
	ANDQ    24(DI), DX
	POPCNTQ DX, DX
	ADDQ    DX, R11
	ANDQ    32(DI), AX
	POPCNTQ AX, AX
	ADDQ    AX, R12
	ADDQ    $8, SI
	ADDQ    $40, DI
	DECQ    CX
	JNE     loop

done:
	SHLQ $1, R10
	SHLQ $2, R11
	SHLQ $3, R12
	ADDQ R10, R9
	ADDQ R11, R9
	ADDQ R12, R9
	MOVQ R8, ones+48(FP)
	MOVQ R9, sum+56(FP)
	RET
