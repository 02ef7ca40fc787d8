#!/usr/bin/env python3
"""Instructions per DP cell in the PairHMM kernels' inner loops, from the SASS.

Usage (on a machine with the CUDA toolkit's cuobjdump):
  cuobjdump -sass build/kernels/CMakeFiles/gpp_kernels.dir/pairhmm_cuda_tiles.cu.o > tiles.sass
  python3 bench/pairhmm/sass_loop_stats.py tiles.sass

For every tile kernel (tile_kernel<P, K, fused>) it finds the innermost loop that contains the
warp shuffles (one or more wavefront steps of K cells per thread: two shuffles a step), counts
its instructions by class and prints
instructions per cell, FP32 instructions per cell, and the ceiling those imply for a GPU whose
issue rate is given by --issue (thread instructions per second; H100 or H200 SXM: 132 SMs x 128
lanes x 1.98 GHz = 3.35e13).

The multi-tile kernel (multi_tile_kernel<K>, 32 threads, fused form) has one step loop per kind
of tile (with or without a boundary row above and below, in code order); each is listed, its
steps counted by the emission-table loads (K / 4 per step) since the boundary-reading loops
shuffle four times a step. Loops whose shuffles the compiler wrapped in WARPSYNC / ENDCOLLECTIVE
(its fallback for code it cannot prove the whole warp runs) are marked "collective".
"""
import argparse
import re
import sys


def kernels(text):
    """Yields (name, list of (address, opcode line)) per function."""
    name, body = None, []
    for line in text.splitlines():
        m = re.match(r"\s*Function : (\S+)", line)
        if m:
            if name:
                yield name, body
            name, body = m.group(1), []
            continue
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?);", line)
        if m and name:
            body.append((int(m.group(1), 16), m.group(2).strip()))
    if name:
        yield name, body


def opcode(instruction):
    text = re.sub(r"^@!?U?P\w+\s+", "", instruction)  # predicate guard
    return text.split()[0] if text else ""


def step_loop(body):
    """The smallest backward-branch loop containing SHFL instructions."""
    best = None
    for index, (address, instruction) in enumerate(body):
        m = re.match(r"(?:@!?U?P\w+\s+)?BRA\s+(?:`\(\.L_x_\d+\)|0x([0-9a-f]+))", instruction)
        if not m or not m.group(1):
            continue
        target = int(m.group(1), 16)
        if target >= address:
            continue
        segment = [ins for addr, ins in body if target <= addr <= address]
        if any(opcode(i).startswith("SHFL") for i in segment):
            if best is None or len(segment) < len(best):
                best = segment
    return best


def innermost_step_loops(body):
    """Every backward-branch loop with SHFL instructions that holds no smaller such loop."""
    loops = []
    for address, instruction in body:
        m = re.match(r"(?:@!?U?P\w+\s+)?BRA\s+(?:`\(\.L_x_\d+\)|0x([0-9a-f]+))", instruction)
        if not m or not m.group(1):
            continue
        target = int(m.group(1), 16)
        if target >= address:
            continue
        segment = [ins for addr, ins in body if target <= addr <= address]
        if any(opcode(i).startswith("SHFL") for i in segment):
            loops.append((target, address, segment))
    return [seg for lo, hi, seg in loops
            if not any(lo <= l2 and h2 <= hi and (l2, h2) != (lo, hi) for l2, h2, _ in loops)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("sass")
    parser.add_argument("--issue", type=float, default=3.35e13)
    args = parser.parse_args()
    text = open(args.sass).read()
    print("| kernel | P | K | form | instructions / step | per cell | FP32 per cell | ceiling TCUPS |")
    print("|---|---|---|---|---|---|---|---|")
    for name, body in kernels(text):
        m = re.search(r"tile_kernelILi(\d+)ELi(\d+)ELb([01])", name)
        if not m:
            continue
        p, k, fused = int(m.group(1)), int(m.group(2)), m.group(3) == "1"
        loop = step_loop(body)
        if not loop:
            continue
        ops = [opcode(i) for i in loop]
        fp32 = sum(1 for o in ops if re.match(r"F(FMA|MUL|ADD)\b", o.split(".")[0]))
        steps = max(1, sum(1 for o in ops if o.startswith("SHFL")) // 2)  # 2 shuffles a step
        per_cell = len(ops) / (k * steps)
        print(f"| tile_kernel | {p} | {k} | {'fused' if fused else '5-op'} | {len(ops) / steps:.1f} "
              f"| {per_cell:.2f} | {fp32 / (k * steps):.2f} | {args.issue / per_cell / 1e12:.2f} |")
    for name, body in kernels(text):
        m = re.search(r"multi_tile_kernelILi(\d+)EE", name)
        if not m:
            continue
        k = int(m.group(1))
        for number, loop in enumerate(innermost_step_loops(body)):
            ops = [opcode(i) for i in loop]
            fp32 = sum(1 for o in ops if re.match(r"F(FMA|MUL|ADD)\b", o.split(".")[0]))
            steps = max(1, sum(1 for o in ops if o.startswith("LDS")) // ((k + 3) // 4))
            per_cell = len(ops) / (k * steps)
            kind = " collective" if any(o.startswith("WARPSYNC") for o in ops) else ""
            print(f"| multi_tile_kernel (loop {number + 1}{kind}) | 32 | {k} | fused | "
                  f"{len(ops) / steps:.1f} | {per_cell:.2f} | {fp32 / (k * steps):.2f} "
                  f"| {args.issue / per_cell / 1e12:.2f} |")


if __name__ == "__main__":
    sys.exit(main())
