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

// func signSumsPOPCNT(codes []uint64, words int, planes []uint64, out []uint64)
// Requires POPCNT, words > 0, len(planes) >= 5*words and len(codes) >=
// len(out)*words: out[i] = ones | sum<<32 of chunk i's code
// codes[i*words:(i+1)*words], as signPlanesPOPCNT returns them, the codes
// fetched 8 KB ahead.
TEXT ·signSumsPOPCNT(SB), NOSPLIT, $0-80
	MOVQ codes_base+0(FP), SI
	MOVQ out_base+56(FP), R13
	MOVQ out_len+64(FP), DX
	TESTQ DX, DX
	JE    sdone

schunk:
	// Fetch the lines of the code 8 KB ahead.
	MOVQ words+24(FP), CX
	SHLQ $3, CX
	XORQ BX, BX

spf:
	PREFETCHT0 8192(SI)(BX*1)
	ADDQ       $64, BX
	CMPQ       BX, CX
	JL         spf

	MOVQ planes_base+32(FP), DI
	MOVQ words+24(FP), CX
	XORQ R8, R8
	XORQ R9, R9
	XORQ R10, R10
	XORQ R11, R11
	XORQ R12, R12

sloop:
	MOVQ    (SI), AX
	MOVQ    AX, BX
	ANDQ    (DI), BX
	POPCNTQ BX, BX
	ADDQ    BX, R8
	MOVQ    AX, BX
	ANDQ    8(DI), BX
	POPCNTQ BX, BX
	ADDQ    BX, R9
	MOVQ    AX, BX
	ANDQ    16(DI), BX
	POPCNTQ BX, BX
	ADDQ    BX, R10
	MOVQ    AX, BX
	ANDQ    24(DI), BX
	POPCNTQ BX, BX
	ADDQ    BX, R11
	ANDQ    32(DI), AX
	POPCNTQ AX, AX
	ADDQ    AX, R12
	ADDQ    $8, SI
	ADDQ    $40, DI
	DECQ    CX
	JNE     sloop

	SHLQ $1, R10
	SHLQ $2, R11
	SHLQ $3, R12
	ADDQ R10, R9
	ADDQ R11, R9
	ADDQ R12, R9
	SHLQ $32, R9
	ORQ  R8, R9
	MOVQ R9, (R13)
	ADDQ $8, R13
	DECQ DX
	JNE  schunk

sdone:
	RET
