#!/usr/bin/env python3
"""Code-object report for the HIP backend (issue 17, section 2).

For every HIP GEMM/GEMV kernel in the given binaries this script reads what the compiler produced for
the AMD GPU: registers, LDS, scratch, the occupancy they allow, the instruction mix of the steady-state K
loop, and a static bound on the matrix-unit issue rate. No AMD GPU is needed or used: everything here is
read from the code objects, so every rate it prints is an ESTIMATE, never a measurement.

    scripts/hip_code_objects.py build/hip/tests/test_gemm_hip ... [--json report.json]

Inputs may be executables, relocatable objects or static archives (.a) that hold a `.hip_fatbin`
section, raw offload bundles (.hipfb) or AMDGPU code objects. See docs/hip_code_objects.md for the
model, its sources and the CI checks. Python 3 standard library only; the LLVM tools come with hipcc.
"""

import argparse
import ast
import concurrent.futures
import hashlib
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_TABLE = os.path.join(ROOT, "backends", "hip", "tile_table.hpp")
DEVICE_SPECS_HPP = os.path.join(ROOT, "backends", "hip", "device_specs.hpp")

# --------------------------------------------------------------------------------------------------
# Hardware model. Everything the occupancy and bound computations assume is in this block.
#
# Occupancy on gfx90a (CDNA2) and gfx940/gfx942 (CDNA3), per SIMD; a CU has 4 SIMDs:
#  * One unified vector register file of 512 registers per lane per SIMD (ROCm "Accelerator and GPU
#    hardware specifications": 512 KiB of VGPR file per CU on MI250X and MI300X = 4 SIMDs x 64 lanes x
#    512 x 4 B; https://rocm.docs.amd.com/en/docs-6.1.1/reference/gpu-arch-specs.html). A wave's
#    AGPRs are allocated after its architectural VGPRs rounded up to 4 (ACCUM_OFFSET, granularity 4)
#    and the total in granules of 8 (GRANULATED_WORKITEM_VGPR_COUNT on GFX90A: LLVM AMDGPUUsage,
#    "Kernel Descriptor", https://llvm.org/docs/AMDGPUUsage.html#kernel-descriptor). At most 8 waves
#    per SIMD, so waves = min(8, 512 // roundup(align4(vgpr) + agpr, 8)). LLVM computes the same in
#    AMDGPU::IsaInfo::getNumWavesPerEUWithNumVGPRs (llvm/lib/Target/AMDGPU/Utils/AMDGPUBaseInfo.cpp).
#    The metadata's .vgpr_count is already that unified total on these targets (the HSA metadata
#    streamer emits the program's NumVGPR, which AMDGPUAsmPrinter sets to the total; a probe with 17
#    VGPRs and 16 AGPRs reports .vgpr_count 36 = 20 + 16), and the kernel descriptor's granule count
#    and ACCUM_OFFSET, which the hardware allocates from, are read as a cross-check.
#  * SGPRs: 800 per SIMD (12.5 KiB per CU, same ROCm page); LLVM's GFX9 rule
#    (GCNSubtarget::getOccupancyWithNumSGPRs): <= 100 SGPRs (VCC etc. included, as .sgpr_count is)
#    allow 8 waves, more allow 7.
#  * LDS: 64 KiB per CU (same ROCm page), allocated in 512-byte granules ("LDS is allocated in 128
#    dword blocks" from Sea Islands on: AMDGPUAsmPrinter::getSIProgramInfo, LDSAlignShift). The code
#    object only holds the static LDS (.group_segment_fixed_size); Kokkos team scratch is dynamic LDS set at
#    launch, so the team scratch is added: the entry's lds_bytes (or scratch_bytes) where it states
#    one, else for GemmTeamTiled kernels what GemmTeamTiled::scratch_bytes() computes from the entry's
#    tile fields (gemm_team_tiled_lds), plus the team-reduction buffer that Kokkos 3.4's HIP
#    ParallelFor<TeamPolicy> puts in front of it: 8 * (team_size + 2) bytes (m_shmem_begin in
#    Kokkos_HIP_Parallel_Team.hpp).
#  * Workgroups per CU: at most 16 when a workgroup has more than one wave (barrier resources), 32
#    single-wave ones, and 32 waves per CU in all (LLVM AMDGPU::IsaInfo::getMaxWorkGroupsPerCU).
#  * A workgroup's waves are spread over the CU's 4 SIMDs; a workgroup of n waves needs
#    4 * ceil(n / 4) wave slots when n >= 4 (n slots when n < 4), so the waves per SIMD it reaches are
#    (workgroups per CU) * n / 4, capped by the register limit.
#  Kokkos launches with the team size of the policy, which the kernel symbol does not show: the table
#  entry's team_size is used where the kernel names an entry, else the metadata's
#  .max_flat_workgroup_size (the launch bound, an upper limit) and the row is marked '*'.
SIMDS_PER_CU = 4
WAVE_SIZE = 64
VGPRS_PER_SIMD_LANE = 512
VGPR_GRANULE = 8
AGPR_OFFSET_GRANULE = 4
MAX_WAVES_PER_SIMD = 8
LDS_PER_CU = 64 * 1024
LDS_GRANULE = 512
MAX_WAVES_PER_CU = SIMDS_PER_CU * MAX_WAVES_PER_SIMD
MAX_WORKGROUPS_PER_CU_MULTIWAVE = 16

# The static bound (an ESTIMATE; docs/hip_code_objects.md explains the model):
#  * Each SIMD issues one instruction of a given wave at most every 4 cycles (the CU's sequencer visits
#    each of its 4 SIMDs in turn), so a wave's loop iteration takes at least 4 cycles per instruction.
#  * A wave64 VALU instruction occupies its SIMD's 16-lane vector ALU for 4 cycles.
#  * An MFMA occupies the SIMD's matrix core for its cycle count (table below). MFMAs that the
#    calculator marks as able to co-execute overlap VALU work of other waves; FP64 MFMAs do not.
#  * LDS serves 128 bytes per clock per CU (32 banks x 4 B), so 32 B per clock per SIMD.
#  With W waves per SIMD, one iteration of each of them takes
#    T = max(4 * instructions, W * pipe, W * lds_bytes / 32),  pipe = mfma + valu or max(mfma, valu),
#  and the matrix core delivers W * flops_of_the_loop's_MFMAs / T per clock, compared with the peak per
#  SIMD per clock of the device spec. Global memory is assumed to keep up ("if memory keeps up");
#  the roofline column shows what memory allows at the given shape.
ISSUE_CYCLES_PER_INSTRUCTION = 4
VALU_CYCLES = 4
LDS_BYTES_PER_CLOCK_PER_CU = 128

# MFMA cycles per instruction, per wave, on CDNA2 (gfx90a): the 'cycles' and 'blocks' fields of the
# 'cdna2' table in AMD's Matrix Instruction Calculator,
# https://github.com/ROCm/amd_matrix_instruction_calculator (matrix_calculator.py, dict_insts), where
# 'coexec' is also taken from (FP64 MFMAs cannot co-execute with VALU instructions). Key: (output
# type, M, N, K, input type) from the mnemonic, with the bf16 "_1k" forms keyed as "bf16_1k". The
# FLOP of one instruction is 2 * M * N * K * blocks. The resulting rates agree with AMD's MI250X
# figures (FLOP per clock per CU: FP64 256, FP32 256, FP16 1024, BF16 1024; AMD lab notes "AMD matrix
# cores", https://gpuopen.com/learn/amd-lab-notes/amd-lab-notes-matrix-cores-readme/), which
# check_cycle_tables() verifies against the device specs below.
#        key                              cycles blocks coexec
MFMA_CDNA2 = {
    ("f32", 32, 32, 1, "f32"): (64, 2, True),
    ("f32", 16, 16, 1, "f32"): (32, 4, True),
    ("f32", 4, 4, 1, "f32"): (8, 16, True),
    ("f32", 32, 32, 2, "f32"): (64, 1, True),
    ("f32", 16, 16, 4, "f32"): (32, 1, True),
    ("f32", 32, 32, 4, "f16"): (64, 2, True),
    ("f32", 16, 16, 4, "f16"): (32, 4, True),
    ("f32", 4, 4, 4, "f16"): (8, 16, True),
    ("f32", 32, 32, 8, "f16"): (64, 1, True),
    ("f32", 16, 16, 16, "f16"): (32, 1, True),
    ("i32", 32, 32, 4, "i8"): (64, 2, True),
    ("i32", 16, 16, 4, "i8"): (32, 4, True),
    ("i32", 4, 4, 4, "i8"): (8, 16, True),
    ("i32", 32, 32, 8, "i8"): (64, 1, True),
    ("i32", 16, 16, 16, "i8"): (32, 1, True),
    ("f32", 32, 32, 4, "bf16_1k"): (64, 2, True),
    ("f32", 16, 16, 4, "bf16_1k"): (32, 4, True),
    ("f32", 4, 4, 4, "bf16_1k"): (8, 16, True),
    ("f32", 32, 32, 8, "bf16_1k"): (64, 1, True),
    ("f32", 16, 16, 16, "bf16_1k"): (32, 1, True),
    ("f32", 32, 32, 2, "bf16"): (64, 2, True),
    ("f32", 16, 16, 2, "bf16"): (32, 4, True),
    ("f32", 4, 4, 2, "bf16"): (8, 16, True),
    ("f32", 32, 32, 4, "bf16"): (64, 1, True),
    ("f32", 16, 16, 8, "bf16"): (32, 1, True),
    ("f64", 16, 16, 4, "f64"): (32, 1, False),
    ("f64", 4, 4, 4, "f64"): (16, 4, False),
}

# CDNA3 (gfx940/gfx941/gfx942, MI300X). The calculator version consulted here has no CDNA3 table, so
# these are DERIVED from the MI300X datasheet peaks in backends/hip/device_specs.hpp (FLOP per clock
# per CU = peak / (304 CUs * 2.1 GHz): FP64 and FP32 matrix 256, FP16/BF16 2048): cycles = FLOP of the
# instruction / (that rate / 4 SIMDs). The FP64 ones (8 and 4 passes of 4 cycles) are what LLVM's
# scheduling model was corrected to from the CDNA3 ISA manual
# (https://github.com/llvm/llvm-project/pull/83782). On gfx940 the bf16 forms are the CDNA2 "_1k"
# ones without the suffix. Any MFMA not listed falls back to its CDNA2 cycles, and the row says so.
MFMA_CDNA3 = {
    ("f64", 16, 16, 4, "f64"): (32, 1, False),
    ("f64", 4, 4, 4, "f64"): (16, 4, False),
    ("f32", 32, 32, 2, "f32"): (64, 1, True),
    ("f32", 16, 16, 4, "f32"): (32, 1, True),
    ("f32", 32, 32, 8, "f16"): (32, 1, True),
    ("f32", 16, 16, 16, "f16"): (16, 1, True),
    ("f32", 32, 32, 8, "bf16_1k"): (32, 1, True),
    ("f32", 16, 16, 16, "bf16_1k"): (16, 1, True),
}

# Device figures for the bound and the roofline, copied from backends/hip/device_specs.hpp (that file
# is the source; load_device_specs() re-reads it when present and warns if these drifted). The
# MI250X GCD is half of the package, as mi250x_gcd() derives it. Peaks in FLOP/s, bandwidth in B/s.
DEVICES = {
    "mi250x-gcd": {
        "name": "AMD Instinct MI250X (one GCD)", "cus": 110, "clock_ghz": 1.7, "dram_bw": 1.6384e12,
        "matrix": {"fp64": 47.85e12, "fp32": 47.85e12, "fp16": 191.5e12, "bf16": 191.5e12},
        "vector": {"fp64": 23.95e12, "fp32": 23.95e12},
    },
    "mi300x": {
        "name": "AMD Instinct MI300X", "cus": 304, "clock_ghz": 2.1, "dram_bw": 5.3e12,
        "matrix": {"fp64": 163.4e12, "fp32": 163.4e12, "fp16": 1307.4e12, "bf16": 1307.4e12,
                   "tf32": 653.7e12},
        "vector": {"fp64": 81.7e12, "fp32": 163.4e12},
    },
}
TARGET_DEVICE = {"gfx90a": ("mi250x-gcd", MFMA_CDNA2, "CDNA2"),
                 "gfx940": ("mi300x", MFMA_CDNA3, "CDNA3"),
                 "gfx941": ("mi300x", MFMA_CDNA3, "CDNA3"),
                 "gfx942": ("mi300x", MFMA_CDNA3, "CDNA3")}

ESTIMATE_NOTE = ("STATIC ESTIMATES from the code objects (no AMD GPU ran anything): 'est%' is the "
                 "matrix-core issue rate the K loop allows if memory keeps up, 'roof%' the roofline "
                 "bound at the given shape, both in % of the device's matrix peak for the dtype.")


class ReportError(Exception):
    """A problem that makes the report itself impossible (exit 2)."""


# --------------------------------------------------------------------------------------------------
# Tools. hipcc on Debian 12 depends on llvm-15 (llvm-readelf, llvm-objdump, llvm-cxxfilt) and
# clang-tools-15; the newest /usr/lib/llvm-N is taken first because older LLVMs do not know every
# target (LLVM 14 has no gfx940).

def find_tool(name, llvm_bin):
    candidates = []
    if llvm_bin:
        candidates.append(os.path.join(llvm_bin, name))
    versions = []
    for d in os.listdir("/usr/lib") if os.path.isdir("/usr/lib") else []:
        m = re.fullmatch(r"llvm-(\d+)", d)
        if m:
            versions.append(int(m.group(1)))
    for v in sorted(versions, reverse=True):
        candidates.append("/usr/lib/llvm-%d/bin/%s" % (v, name))
    for c in candidates:
        if os.access(c, os.X_OK):
            return c
    found = shutil.which(name)
    if found:
        return found
    raise ReportError("%s not found (looked in %s and PATH); on Debian it comes with hipcc's llvm-15 "
                      "package" % (name, ", ".join(candidates) or "/usr/lib/llvm-*/bin"))


# --------------------------------------------------------------------------------------------------
# Extraction: host ELF / archive -> .hip_fatbin -> offload bundles -> AMDGPU code objects.

ELF_MAGIC = b"\x7fELF"
EM_AMDGPU = 224
BUNDLE_MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"
COMPRESSED_BUNDLE_MAGIC = b"CCOB"


def elf_sections(data):
    """Section name -> (file offset, size, type, address) of a little-endian ELF64 image."""
    if data[:4] != ELF_MAGIC or data[4] != 2 or data[5] != 1:
        raise ReportError("not a little-endian ELF64 file")
    e_shoff, = struct.unpack_from("<Q", data, 0x28)
    e_shentsize, e_shnum, e_shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = []
    for i in range(e_shnum):
        name, typ, _flags, addr, off, size = struct.unpack_from("<IIQQQQ", data, e_shoff + i * e_shentsize)
        link, = struct.unpack_from("<I", data, e_shoff + i * e_shentsize + 0x28)
        headers.append((name, typ, addr, off, size, link))
    strtab_off = headers[e_shstrndx][3]
    out = {}
    for i, (name, typ, addr, off, size, link) in enumerate(headers):
        end = data.index(b"\0", strtab_off + name)
        out[data[strtab_off + name:end].decode()] = {"offset": off, "size": size, "type": typ,
                                                     "addr": addr, "link": link, "index": i}
    return out


def ar_members(data):
    """Members (name, bytes) of a System V / GNU ar archive: static libraries keep their objects'
    .hip_fatbin sections, which is where the CLI library's kernels are."""
    pos, longnames = 8, b""
    while pos + 60 <= len(data):
        header = data[pos:pos + 60]
        name = header[:16].decode(errors="replace").strip()
        size = int(header[48:58].decode().strip())
        body = data[pos + 60:pos + 60 + size]
        if name == "//":
            longnames = body
        elif name not in ("/", "/SYM64/"):
            if name.startswith("/") and name[1:].isdigit():
                start = int(name[1:])
                name = longnames[start:longnames.index(b"/\n", start)].decode()
            yield name.rstrip("/"), body
        pos += 60 + size + (size & 1)


def split_bundles(blob, where):
    """AMDGPU code objects in one .hip_fatbin section. The linker concatenates one bundle per
    translation unit (each aligned to 4096 B), so every magic is a bundle start. Bundle layout
    (clang's ClangOffloadBundler documentation): magic, uint64 entry count, then per entry uint64
    offset (from the bundle start), uint64 size, uint64 triple length and the triple."""
    if COMPRESSED_BUNDLE_MAGIC in blob[:4096] and BUNDLE_MAGIC not in blob:
        raise ReportError("%s: compressed offload bundle (CCOB); unbundle it with a newer "
                          "clang-offload-bundler first" % where)
    objects = []
    start = blob.find(BUNDLE_MAGIC)
    while start >= 0:
        count, = struct.unpack_from("<Q", blob, start + len(BUNDLE_MAGIC))
        p = start + len(BUNDLE_MAGIC) + 8
        for _ in range(count):
            off, size, tlen = struct.unpack_from("<QQQ", blob, p)
            p += 24
            triple = blob[p:p + tlen].decode()
            p += tlen
            if triple.startswith(("hip-amdgcn", "hipv4-amdgcn", "openmp-amdgcn")) and size:
                objects.append((triple, blob[start + off:start + off + size]))
        start = blob.find(BUNDLE_MAGIC, start + 1)
    return objects


def code_objects_of(path):
    """(triple, code object bytes, source description) for every AMDGPU code object in path."""
    with open(path, "rb") as f:
        data = f.read()
    found = []

    def from_elf(blob, where):
        if blob[:4] != ELF_MAGIC:
            return
        machine, = struct.unpack_from("<H", blob, 0x12)
        if machine == EM_AMDGPU:
            found.append(("amdgcn-amd-amdhsa--" + amdgpu_target_of(blob), blob, where))
            return
        secs = elf_sections(blob)
        sec = secs.get(".hip_fatbin")
        if sec is None or sec["type"] == 8:  # SHT_NOBITS: nothing stored
            return
        for triple, co in split_bundles(blob[sec["offset"]:sec["offset"] + sec["size"]], where):
            found.append((triple, co, where))

    if data.startswith(b"!<arch>\n"):
        for name, body in ar_members(data):
            from_elf(body, "%s(%s)" % (path, name))
    elif data.startswith(BUNDLE_MAGIC):
        found.extend((t, co, path) for t, co in split_bundles(data, path))
    else:
        from_elf(data, path)
    return found


def amdgpu_target_of(co):
    """gfx name from an AMDGPU ELF's e_flags (EF_AMDGPU_MACH), for raw code objects given directly."""
    flags, = struct.unpack_from("<I", co, 0x30)
    mach = {0x3F: "gfx90a", 0x40: "gfx940", 0x4B: "gfx941", 0x4C: "gfx942", 0x30: "gfx908"}
    return mach.get(flags & 0xFF, "unknown")


def target_of_triple(triple):
    # "hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-" -> "gfx90a"
    return triple.split("--", 1)[-1].split(":", 1)[0]


# --------------------------------------------------------------------------------------------------
# Code-object metadata and kernel descriptors.

def parse_notes(text):
    """Kernels from `llvm-readelf --notes`, which prints the AMDGPU metadata msgpack as YAML. Only the
    scalar keys at the kernel level are kept (nested .args lists are skipped)."""
    kernels, cur, in_kernels = [], None, False
    for line in text.splitlines():
        if line.startswith("amdhsa.kernels:"):
            in_kernels = True
            continue
        if in_kernels and re.match(r"^amdhsa\.", line):
            in_kernels = False
        if not in_kernels:
            continue
        m = re.match(r"^  - \.(\w+):\s*(.*)$", line)
        if m:
            cur = {}
            kernels.append(cur)
            cur[m.group(1)] = m.group(2).strip()
            continue
        m = re.match(r"^    \.(\w+):\s*(.*)$", line)
        if m and cur is not None:
            cur[m.group(1)] = m.group(2).strip()
    for k in kernels:
        for key, value in list(k.items()):
            if re.fullmatch(r"-?\d+", value):
                k[key] = int(value)
    return kernels


def kernel_descriptors(co):
    """name -> (vgpr granules, accum_offset) from each kernel's 64-byte descriptor (symbol NAME.kd):
    COMPUTE_PGM_RSRC1 bits 5:0 = allocated VGPRs / 8 - 1 on GFX90A, COMPUTE_PGM_RSRC3 bits 5:0 =
    ACCUM_OFFSET / 4 - 1 (AMDGPUUsage, "Kernel Descriptor"). These are what the hardware allocates."""
    secs = elf_sections(co)
    by_index = {s["index"]: s for s in secs.values()}
    out = {}
    for symtab_name in (".symtab", ".dynsym"):
        symtab = secs.get(symtab_name)
        if symtab is None:
            continue
        strtab = by_index[symtab["link"]]
        for i in range(symtab["size"] // 24):
            st_name, _info, _other, shndx, value, _size = struct.unpack_from(
                "<IBBHQQ", co, symtab["offset"] + i * 24)
            end = co.index(b"\0", strtab["offset"] + st_name)
            name = co[strtab["offset"] + st_name:end].decode(errors="replace")
            if not name.endswith(".kd") or shndx not in by_index:
                continue
            sec = by_index[shndx]
            off = sec["offset"] + value - sec["addr"]
            rsrc3, rsrc1 = struct.unpack_from("<II", co, off + 44)
            out[name[:-3]] = ((rsrc1 & 0x3F) + 1, ((rsrc3 & 0x3F) + 1) * AGPR_OFFSET_GRANULE)
        if out:
            break
    return out


# --------------------------------------------------------------------------------------------------
# Demangled names: which functor a kernel runs, its tile-table entry and element type.

def split_template(text):
    """'A::B<x, y<z>, w>' -> ('A::B', ['x', 'y<z>', 'w']); parentheses and nested <> respected."""
    i = text.find("<")
    if i < 0:
        return text.strip(), []
    name, args, depth, cur = text[:i].strip(), [], 0, ""
    for ch in text[i + 1:]:
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            if depth == 0:
                args.append(cur.strip())
                return name, args
            depth -= 1
        elif ch == "," and depth == 0:
            args.append(cur.strip())
            cur = ""
            continue
        cur += ch
    return name, args  # unbalanced: return what was read


def functor_of(demangled):
    """The type a kernel runs. Kokkos kernels are hip_parallel_launch_*<Kokkos::Impl::ParallelFor<
    FUNCTOR, POLICY, EXEC>, ...>; other kernels (e.g. probes) take their first template argument."""
    m = re.search(r"Kokkos::Impl::Parallel(For|Reduce|Scan)\w*<", demangled)
    if m:
        _, args = split_template(demangled[m.start():])
        return args[0] if args else ""
    # 'void name<ARG, ...>(...)': skip the return type.
    body = demangled.split(" ", 1)[1] if demangled.startswith("void ") else demangled
    _, args = split_template(body)
    return args[0] if args else ""


def functor_chain(functor):
    """Wrappers to the innermost ridgeline::detail functor, e.g. GemmBatchedTiles<GemmTeamTiled<...>>:
    a ridgeline::detail template whose first argument is itself a ridgeline::detail template instance
    wraps it (a kernel's own first argument is its execution space)."""
    chain = []
    cur = functor
    while True:
        name, args = split_template(cur)
        chain.append((name, args))
        if (name.startswith("ridgeline::detail::") and args and args[0].startswith("ridgeline::detail::")
                and "<" in args[0]):
            cur = args[0]
            continue
        return chain


def is_gemm_gemv(chain):
    return any(re.match(r"ridgeline::(detail::)?(Gemm|Gemv)\w*$", name) for name, _ in chain)


HIP_NS = "ridgeline::backends::hip::"


def short_type(t):
    """A readable short form of a demangled type: f64 f32 f16 bf16 z64 c32 for the element types, 1/0
    for flags, the micro-kernel's kind, else the unqualified name with its arguments shortened."""
    t = t.strip()
    table = {"double": "f64", "float": "f32", "true": "1", "false": "0"}
    if t in table:
        return table[t]
    if re.fullmatch(r"-?\d+[uUlL]*", t):
        return t.rstrip("uUlL")
    name, args = split_template(t)
    base = name.rsplit("::", 1)[-1]
    if base == "Float16Storage":
        return "bf16" if "Bf16Tag" in t else "f16"
    if base == "complex" and args:
        return {"double": "z64", "float": "c32"}.get(args[0].strip(), "complex<%s>" % short_type(args[0]))
    if "MicroKernel" in base:
        return base.replace("MicroKernel", "").lower() or "mk"
    return base + ("<%s>" % ",".join(short_type(a) for a in args) if args else "")


DTYPE_OF = [("Kokkos::complex<double>", "fp64", 16, True), ("Kokkos::complex<float>", "fp32", 8, True),
            ("Bf16Tag", "bf16", 2, False), ("Fp16Tag", "fp16", 2, False),
            ("double", "fp64", 8, False), ("float", "fp32", 4, False)]


def dtype_of(type_text):
    for needle, dtype, size, cplx in DTYPE_OF:
        if needle in type_text:
            return dtype, size, cplx
    return None, None, False


# --------------------------------------------------------------------------------------------------
# The tile table: struct blocks with static constexpr fields, templates and aliases.

def strip_comments(src):
    out, i, n = [], 0, len(src)
    while i < n:
        if src.startswith("//", i):
            j = src.find("\n", i)
            i = n if j < 0 else j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif src[i] == '"':
            j = i + 1
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            out.append(src[i:j + 1])
            i = j + 1
        else:
            out.append(src[i])
            i += 1
    return "".join(out)


def matching_brace(src, open_pos):
    depth = 0
    for j in range(open_pos, len(src)):
        if src[j] == "{":
            depth += 1
        elif src[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    raise ReportError("unbalanced braces in the tile table")


def split_top(text, sep=","):
    parts, depth, cur, in_str = [], 0, "", False
    for ch in text:
        if ch == '"':
            in_str = not in_str
        elif not in_str and ch in "<([{":
            depth += 1
        elif not in_str and ch in ">)]}":
            depth -= 1
        if ch == sep and depth == 0 and not in_str:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return [p.strip() for p in parts if p.strip()]


def parse_table(paths, def_paths=()):
    """name -> entry dict: template parameters, fields (name -> expression text), bases, file, line, and
    whether it comes from a table file (paths) or only from a header that the table's expressions and
    base classes refer to (def_paths, e.g. the MFMA instruction structs of mfma_gfx90a.hpp). Aliases
    `using X = Y<...>;` outside struct bodies are kept as name -> target text."""
    entries, aliases = {}, {}
    for path in list(def_paths) + list(paths):  # table files last: their definitions win
        primary = path in paths
        with open(path) as f:
            src = strip_comments(f.read())
        struct_spans = []
        pattern = re.compile(r"(template\s*<(?P<tparams>[^{};]*?)>\s*)?struct\s+(?P<name>\w+)\s*"
                             r"(?::\s*(?P<bases>[^{;]*))?\{")
        for m in pattern.finditer(src):
            open_pos = m.end() - 1
            close = matching_brace(src, open_pos)
            struct_spans.append((m.start(), close))
            body = src[open_pos + 1:close]
            # Only the struct's own level: nested braces (member functions, nested types) are blanked.
            flat, depth = [], 0
            for ch in body:
                if ch == "{":
                    depth += 1
                elif ch == "}":
                    depth -= 1
                elif depth == 0:
                    flat.append(ch)
            fields = {}
            for decl in re.finditer(r"static\s+constexpr\s+([^;]*);", "".join(flat)):
                pieces = split_top(decl.group(1))
                for piece in pieces:
                    if "=" not in piece:
                        continue
                    lhs, rhs = piece.split("=", 1)
                    ident = re.findall(r"\w+", lhs)
                    if ident:
                        fields[ident[-1]] = rhs.strip()
            tparams = []
            if m.group("tparams") is not None:
                for p in split_top(m.group("tparams")):
                    words = re.findall(r"[\w:]+", p.split("=")[0])
                    tparams.append((words[-1], "type" if words[0] in ("class", "typename") else "value"))
            bases = []
            if m.group("bases"):
                for b in split_top(m.group("bases")):
                    b = re.sub(r"^(public|private|protected)\s+", "", b.strip())
                    bases.append(b)
            name = m.group("name")
            entries[name] = {"name": name, "tparams": tparams if m.group("tparams") is not None else None,
                             "fields": fields, "bases": bases, "file": path, "primary": primary,
                             "line": src.count("\n", 0, m.start()) + 1}
        # Integer constants at namespace scope (kWaveLanes in mfma_gfx90a.hpp), which fields may use.
        for m in re.finditer(r"(?:inline\s+)?constexpr\s+(?:int|long|std::int64_t|std::size_t)\s+(\w+)\s*=\s*"
                             r"(-?\d+)\s*;", src):
            if not any(a <= m.start() < b for a, b in struct_spans):
                NAMESPACE_CONSTANTS[m.group(1)] = int(m.group(2))
        for m in re.finditer(r"(template\s*<[^;{}]*>\s*)?using\s+(\w+)\s*=\s*([^;]+);", src):
            if not primary or m.group(1) or any(a <= m.start() < b for a, b in struct_spans):
                continue
            aliases[m.group(2)] = m.group(3).strip()
    return entries, aliases


# Integer constants defined at namespace scope in the parsed headers (parse_table fills it).
NAMESPACE_CONSTANTS = {}

TYPE_SIZES = {"double": 8, "float": 4, "int": 4, "long": 8, "char": 1, "short": 2, "std::size_t": 8,
              "Kokkos::complex<double>": 16, "Kokkos::complex<float>": 8}


def type_size(t):
    t = t.strip()
    if t in TYPE_SIZES:
        return TYPE_SIZES[t]
    if "Float16Storage" in t:
        return 2
    raise ReportError("sizeof(%s) is not known to the script" % t)


class Entry:
    """One tile-table entry bound to the template arguments a kernel instantiated it with."""

    def __init__(self, table, name, targs, display):
        self.table, self.name, self.display = table, name, display
        self.decl = table[name]
        self.bind = {}
        if self.decl["tparams"]:
            for (pname, kind), arg in zip(self.decl["tparams"], targs):
                self.bind[pname] = (kind, arg)
        self._cache = {}

    def has(self, field):
        return self._find(field) is not None

    def _find(self, field, decl=None):
        decl = decl or self.decl
        if field in decl["fields"]:
            return decl
        for base in decl["bases"]:
            bname = split_template(base)[0].rsplit("::", 1)[-1]
            if bname in self.table:
                hit = self._find(field, self.table[bname])
                if hit is not None:
                    return hit
        return None

    def get(self, field, default=None):
        if field in self._cache:
            return self._cache[field]
        if field in self.decl["fields"]:
            self._cache[field] = None  # cycle guard
            value = self._eval(self.decl["fields"][field], field)
            self._cache[field] = value
            return value
        # A base's field is evaluated in the base, bound to the template arguments this entry gives it
        # (struct GemmTilesHalfMfma : MfmaEightWaves<GemmTilesHalfMfma<Inst>, Inst, 32, 8>), with this
        # entry's own parameters substituted in them.
        for base in self.decl["bases"]:
            bname, bargs = split_template(base)
            bname = bname.rsplit("::", 1)[-1]
            if bname not in self.table:
                continue
            sub = Entry(self.table, bname, [self._substitute(a) for a in bargs], bname)
            if sub.has(field):
                value = sub.get(field, default)
                self._cache[field] = value
                return value
        return default

    def _substitute(self, arg):
        """A template argument as this entry binds it: a parameter's bound value or type, else as written."""
        a = arg.strip()
        return self.bind[a][1] if a in self.bind else a

    def _eval(self, expr, field):
        text = expr.strip()
        m = re.fullmatch(r'"((?:[^"\\]|\\.)*)"', text)
        if m:
            return m.group(1)
        # sizeof(X), C++ literals and operators -> a Python expression over known names.
        def sizeof(mm):
            arg = mm.group(1).strip()
            if arg in self.bind and self.bind[arg][0] == "type":
                arg = self.bind[arg][1]
            return str(type_size(arg))
        text = re.sub(r"sizeof\s*\(([^()]*)\)", sizeof, text)
        # X::field, where X is a type parameter bound to a struct the headers define (Inst::name in
        # GemmTilesHalfMfma<Inst>) or such a struct named directly.
        refs = {}

        def reference(mm):
            owner, member = mm.group(1), mm.group(2)
            bound = self.bind.get(owner)
            type_text = bound[1] if bound and bound[0] == "type" else owner
            if type_text.startswith(HIP_NS):
                type_text = type_text[len(HIP_NS):]
            tname, targs = split_template(type_text)
            if tname not in self.table:
                raise ReportError("%s:%d: %s::%s = %s refers to %s, which no parsed header defines" % (
                    self.decl["file"], self.decl["line"], self.name, field, expr, type_text))
            value = Entry(self.table, tname, targs, tname).get(member)
            if value is None:
                raise ReportError("%s:%d: %s::%s = %s: %s has no field %s" % (
                    self.decl["file"], self.decl["line"], self.name, field, expr, tname, member))
            placeholder = "__ref%d" % len(refs)
            refs[placeholder] = value
            return placeholder
        text = re.sub(r"\b([A-Za-z_]\w*)::([A-Za-z_]\w*)\b(?!\s*[(<])", reference, text)
        if list(refs) == [text.strip()]:
            return refs[text.strip()]
        self._refs = refs
        text = re.sub(r"\b(\d+)[uUlL]+\b", r"\1", text)
        text = re.sub(r"\bstd::(size_t|int64_t|int32_t)\s*\(", "int(", text)
        text = re.sub(r"static_cast<[^<>]*>\s*\(", "int(", text)
        text = re.sub(r"\bstd::(min|max)\b", r"\1", text)
        text = text.replace("&&", " and ").replace("||", " or ")
        text = re.sub(r"!(?!=)", " not ", text)
        text = re.sub(r"\btrue\b", "True", re.sub(r"\bfalse\b", "False", text))
        try:
            tree = ast.parse(text, mode="eval")
        except SyntaxError:
            raise ReportError("%s:%d: cannot evaluate %s::%s = %s" % (
                self.decl["file"], self.decl["line"], self.name, field, expr))
        return self._eval_node(tree.body, field, expr)

    def _eval_node(self, node, field, expr):
        ev = lambda n: self._eval_node(n, field, expr)  # noqa: E731
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            if node.id in getattr(self, "_refs", {}):
                return self._refs[node.id]
            if node.id in self.bind and self.bind[node.id][0] == "value":
                raw = self.bind[node.id][1]
                raw = re.sub(r"^\(\w[\w\s]*\)", "", raw).rstrip("uUlL")
                return {"true": True, "false": False}.get(raw, int(raw) if re.fullmatch(r"-?\d+", raw) else raw)
            # Another field of this entry is evaluated with its own references: keep this expression's.
            saved = getattr(self, "_refs", {})
            value = self.get(node.id)
            self._refs = saved
            if value is None:
                value = NAMESPACE_CONSTANTS.get(node.id)
            if value is None:
                raise ReportError("%s:%d: %s::%s = %s uses %s, which the script cannot resolve" % (
                    self.decl["file"], self.decl["line"], self.name, field, expr, node.id))
            return value
        if isinstance(node, ast.BinOp):
            a, b = ev(node.left), ev(node.right)
            op = type(node.op)
            if op is ast.Div:
                return a // b if isinstance(a, int) and isinstance(b, int) else a / b
            ops = {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Mult: lambda: a * b,
                   ast.Mod: lambda: a % b, ast.LShift: lambda: a << b, ast.RShift: lambda: a >> b,
                   ast.FloorDiv: lambda: a // b}
            if op in ops:
                return ops[op]()
        if isinstance(node, ast.UnaryOp):
            v = ev(node.operand)
            if isinstance(node.op, ast.USub):
                return -v
            if isinstance(node.op, ast.Not):
                return not v
        if isinstance(node, ast.BoolOp):
            vals = [ev(v) for v in node.values]
            return all(vals) if isinstance(node.op, ast.And) else any(vals)
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            a, b = ev(node.left), ev(node.comparators[0])
            cmp = {ast.Lt: a < b, ast.LtE: a <= b, ast.Gt: a > b, ast.GtE: a >= b, ast.Eq: a == b,
                   ast.NotEq: a != b}
            return cmp[type(node.ops[0])]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("min", "max", "int"):
            args = [ev(a) for a in node.args]
            return {"min": min, "max": max, "int": lambda x: int(x)}[node.func.id](*args)
        raise ReportError("%s:%d: cannot evaluate %s::%s = %s" % (
            self.decl["file"], self.decl["line"], self.name, field, expr))


def normalize_type(t):
    return re.sub(r"\s+", "", re.sub(r"(\d+)[uUlL]+\b", r"\1", t.replace(HIP_NS, "")))


def lookup_entry(cfg, table, aliases):
    """The entry a kernel's config type names, or None when the type is not in backends::hip.
    Raises ReportError when it is in backends::hip but not in the table."""
    if not cfg.startswith(HIP_NS):
        return None
    name, targs = split_template(cfg[len(HIP_NS):])
    display = None
    for alias, target in aliases.items():
        if normalize_type(target) == normalize_type(cfg):
            display = alias
    if name not in table or not table[name]["primary"]:
        if name in aliases:  # a non-template alias shows its target in symbols; keep both readable
            tname, targs = split_template(aliases[name])
            if tname in table and table[tname]["primary"]:
                return Entry(table, tname, targs, name)
        raise ReportError("kernel names %s%s, which is not a struct (or alias) of the tile table %s" % (
            HIP_NS, name, " ".join(sorted({e["file"] for e in table.values() if e["primary"]})) or "(none)"))
    return Entry(table, name, targs, display or short_type(cfg))


# --------------------------------------------------------------------------------------------------
# Disassembly: basic blocks, natural loops, the K loop and its instruction mix.

INSTR_RE = re.compile(r"^\s+([a-z_][\w.]*)\s*(.*?)\s*//\s*([0-9A-Fa-f]+):")
FUNC_RE = re.compile(r"^([0-9a-fA-F]+) <([^>]+)>:\s*$")
BRANCH_RE = re.compile(r"^s_(branch|cbranch_\w+)$")
TERMINATORS = ("s_endpgm", "s_setpc_b64", "s_endpgm_saved", "s_trap")
# v_mfma_<out>_<M>x<N>x<K>[_<blocks>b][_]<in>: gfx90a spells v_mfma_f32_32x32x8bf16_1k, gfx940
# v_mfma_f32_32x32x8_bf16 and v_mfma_f32_32x32x1_2b_f32.
MFMA_RE = re.compile(r"^v_mfma_([a-z]+\d+)_(\d+)x(\d+)x(\d+)(?:_\d+b)?_?([a-z]+\d+(?:_1k)?)$")
LDS_READ_RE = re.compile(r"^ds_(?:read|load)(2st64|2)?_(?:addtid_)?[biu](\d+)")
LDS_WRITE_RE = re.compile(r"^ds_(?:write|store)(2st64|2)?_(?:addtid_)?b(\d+)")
GLOBAL_LOAD_RE = re.compile(r"^(global|buffer|flat)_load")
# Scratch through MUBUF uses the private segment buffer, which the kernel receives in s[0:3] (user SGPRs
# 0-3, AMDGPUUsage "Initial Kernel Execution State") and usually copies elsewhere (s_mov_b64
# s[88:89], s[0:1] ...); scratch_rsrcs() follows those copies. Kokkos' global accesses are global_*.
MOV64_RE = re.compile(r"^s\[(\d+):\d+\],\s*s\[(\d+):\d+\]")
RSRC_RE = re.compile(r",\s*s\[(\d+):\d+\],")


def scratch_rsrcs(instrs):
    """First SGPRs of the quads that hold the private segment buffer descriptor."""
    quads, changed = {0}, True
    moves = [MOV64_RE.match(ops) for _, mn, ops in instrs if mn == "s_mov_b64"]
    moves = [(int(m.group(1)), int(m.group(2))) for m in moves if m]
    while changed:
        changed = False
        for dst, src in moves:
            if src in quads and dst % 4 == 0 and dst not in quads:
                quads.add(dst)
                changed = True
    return quads
# Floating-point multiply-adds (the encoding suffix _e32/_e64/_dpp/_sdwa may follow).
FMA_RE = re.compile(r"^v_(pk_)?(fma|fmac|mac|mad|dot2c?)(_mix\w*)?_f(16|32|64)(?![0-9])|^v_fma_mix")


def mfma_key(mnemonic):
    m = MFMA_RE.match(mnemonic)
    if not m:
        return None
    out_t, mm, nn, kk, in_t = m.groups()
    return (out_t, int(mm), int(nn), int(kk), in_t)


def parse_disassembly(text):
    """symbol -> list of (address, mnemonic, operands)."""
    funcs, cur = {}, None
    for line in text.splitlines():
        m = FUNC_RE.match(line)
        if m:
            cur = funcs.setdefault(m.group(2), [])
            continue
        if cur is None:
            continue
        m = INSTR_RE.match(line)
        if m:
            cur.append((int(m.group(3), 16), m.group(1), m.group(2)))
    return funcs


def branch_target(addr, mnemonic, operands):
    """A SOPP branch's target: the 16-bit signed word offset from the next instruction."""
    m = re.match(r"(-?\d+)", operands)
    if not m:
        return None
    imm = int(m.group(1)) & 0xFFFF
    if imm >= 0x8000:
        imm -= 0x10000
    return addr + 4 + 4 * imm


def natural_loops(instrs):
    """Natural loops of the kernel's control-flow graph: blocks split at branch targets and after
    branches, back edges found with dominators. Address ranges alone would be wrong here: the
    compiler moves cold blocks far past the loop and branches back from there."""
    if not instrs:
        return []
    addrs = [a for a, _, _ in instrs]
    index_of = {a: i for i, a in enumerate(addrs)}
    leaders = {0}
    targets = {}
    for i, (a, mn, ops) in enumerate(instrs):
        if BRANCH_RE.match(mn):
            t = branch_target(a, mn, ops)
            if t in index_of:
                targets[i] = index_of[t]
                leaders.add(index_of[t])
            if i + 1 < len(instrs):
                leaders.add(i + 1)
        elif mn in TERMINATORS and i + 1 < len(instrs):
            leaders.add(i + 1)
    starts = sorted(leaders)
    block_of = {}
    blocks = []
    for bi, s in enumerate(starts):
        e = starts[bi + 1] if bi + 1 < len(starts) else len(instrs)
        blocks.append((s, e))
        for i in range(s, e):
            block_of[i] = bi
    succ = [[] for _ in blocks]
    for bi, (s, e) in enumerate(blocks):
        last = e - 1
        mn = instrs[last][1]
        if last in targets:
            succ[bi].append(block_of[targets[last]])
        if mn == "s_branch" or mn in TERMINATORS:
            continue
        if e < len(instrs):
            succ[bi].append(bi + 1)
    pred = [[] for _ in blocks]
    for b, ss in enumerate(succ):
        for s in ss:
            pred[s].append(b)
    # Dominators (Cooper, Harvey, Kennedy: "A Simple, Fast Dominance Algorithm").
    order, seen, stack = [], {0}, [(0, iter(succ[0]))]
    while stack:
        b, it = stack[-1]
        nxt = next(it, None)
        if nxt is None:
            order.append(b)
            stack.pop()
        elif nxt not in seen:
            seen.add(nxt)
            stack.append((nxt, iter(succ[nxt])))
    rpo = list(reversed(order))
    rpo_index = {b: i for i, b in enumerate(rpo)}
    idom = {0: 0}
    changed = True
    while changed:
        changed = False
        for b in rpo[1:]:
            ps = [p for p in pred[b] if p in idom]
            if not ps:
                continue
            new = ps[0]
            for p in ps[1:]:
                x, y = p, new
                while x != y:
                    while rpo_index[x] > rpo_index[y]:
                        x = idom[x]
                    while rpo_index[y] > rpo_index[x]:
                        y = idom[y]
                new = x
            if idom.get(b) != new:
                idom[b] = new
                changed = True

    def dominates(a, b):
        while True:
            if a == b:
                return True
            if b == 0 or b not in idom:
                return False
            b = idom[b]

    bodies = {}
    for b in rpo:
        for s in succ[b]:
            if dominates(s, b):  # back edge b -> s: s heads a loop
                body = bodies.setdefault(s, {s})
                work = [b]
                while work:
                    x = work.pop()
                    if x not in body:
                        body.add(x)
                        work.extend(p for p in pred[x] if p in idom)
    loops = []
    for head, body in bodies.items():
        idx = frozenset(i for bb in body for i in range(*blocks[bb]))
        loops.append({"header": instrs[blocks[head][0]][0], "index": idx,
                      "instrs": [instrs[i] for i in sorted(idx)]})
    return loops


def loop_mix(loop_instrs, scratch_quads=frozenset({0})):
    mix = {"mfma": {}, "lds_read": 0, "lds_write": 0, "lds_read_bytes": 0, "lds_write_bytes": 0,
           "global_load": 0, "barrier": 0, "fma": 0, "fma_flops_per_lane": 0, "valu": 0,
           "total": len(loop_instrs), "scratch_ops": 0}
    for _, mn, ops in loop_instrs:
        if mn.startswith("v_mfma"):
            mix["mfma"][mn] = mix["mfma"].get(mn, 0) + 1
            continue
        m = LDS_READ_RE.match(mn)
        if m:
            mix["lds_read"] += 1
            mix["lds_read_bytes"] += int(m.group(2)) // 8 * (2 if m.group(1) else 1)
            continue
        m = LDS_WRITE_RE.match(mn)
        if m:
            mix["lds_write"] += 1
            mix["lds_write_bytes"] += int(m.group(2)) // 8 * (2 if m.group(1) else 1)
            continue
        rsrc = RSRC_RE.search(ops) if mn.startswith("buffer_") else None
        if mn.startswith("scratch_") or (rsrc and int(rsrc.group(1)) in scratch_quads):
            mix["scratch_ops"] += 1  # spill or private-array traffic, not a global load
        elif GLOBAL_LOAD_RE.match(mn):
            mix["global_load"] += 1
        elif mn == "s_barrier":
            mix["barrier"] += 1
        if mn.startswith("v_"):
            mix["valu"] += 1
            if FMA_RE.match(mn):
                mix["fma"] += 1
                mix["fma_flops_per_lane"] += 4 if (mn.startswith("v_pk_") or "dot2" in mn) else 2
    return mix


def k_loop(instrs, want_mfma):
    """The steady-state K loop: among the innermost loops that hold v_mfma (loops with no nested loop
    holding any; without MFMA, FMA-type VALU instructions count instead), the one with the most;
    among equal counts the smallest. "Innermost" is taken relative to MFMA-bearing loops so that a
    small helper loop inside the K loop (an address or copy loop) does not hide it, and an outer tile
    loop that adds a peeled iteration's MFMAs to the K loop's does not win. Returns the loop and the
    other candidates (the tile kernels compile two variants of their K loop, chosen at run time)."""
    loops = natural_loops(instrs)
    if not loops:
        return None, []
    # Counting first (cheap), the full mix only for the candidates: outer loops can be thousands of
    # instructions long.
    counted = [i for i, (_, mn, _) in enumerate(instrs)
               if (mn.startswith("v_mfma") if want_mfma else FMA_RE.match(mn))]
    for lp in loops:
        lp["count"] = sum(1 for i in counted if i in lp["index"])
    candidates = [lp for lp in loops if lp["count"] > 0 and not any(
        other is not lp and other["count"] > 0 and other["index"] < lp["index"] for other in loops)]
    if not candidates:  # nothing to count: report the innermost loops, the check decides
        candidates = [lp for lp in loops if not any(o is not lp and o["index"] < lp["index"] for o in loops)]
    quads = scratch_rsrcs(instrs)
    for lp in candidates:
        lp["mix"] = loop_mix(lp["instrs"], quads)
    candidates.sort(key=lambda lp: (-lp["count"], lp["mix"]["total"]))
    return candidates[0], candidates[1:]


# --------------------------------------------------------------------------------------------------
# Occupancy and the static bound.

def gemm_team_tiled_lds(entry, elem_bytes, acc_bytes_):
    """Team scratch of GemmTeamTiled, as GemmTeamTiled::scratch_bytes() computes it
    (src/ridgeline/detail/gemm_team_tiled.hpp): two operand stages of BK x (BM + pad_a) and
    BK x (BN + pad_b) elements, a BM x BN accumulator tile unless each thread holds one micro-tile in
    registers, each part aligned to 16 bytes, plus 3 x 16 bytes. None when a field is missing. The
    entry may state lds_bytes instead; the script warns when the two disagree."""
    need = ("bm", "bn", "bk", "pad_a", "pad_b", "stages", "tm", "tn", "team_size")
    if not all(entry.has(f) for f in need):
        return None
    v = {f: int(entry.get(f)) for f in need}
    align = lambda n: roundup(n, 16)  # noqa: E731
    register_acc = (v["bm"] // v["tm"]) * (v["bn"] // v["tn"]) // v["team_size"] == 1
    return (align(elem_bytes * v["stages"] * v["bk"] * (v["bm"] + v["pad_a"])) +
            align(elem_bytes * v["stages"] * v["bk"] * (v["bn"] + v["pad_b"])) +
            (0 if register_acc else align(acc_bytes_ * v["bm"] * v["bn"])) + 3 * 16)


def acc_bytes(k):
    """Size of the accumulator type: GemmTeamTiled<Exec, Cfg, T, Acc, ...>'s fourth argument."""
    args = k["chain"][-1][1]
    if len(args) > 3:
        _, size, _ = dtype_of(args[3])
        if size:
            return size
    return k["elem_bytes"]

def roundup(x, g):
    return (x + g - 1) // g * g


def occupancy(vgpr_total, sgpr, lds_bytes, team_size):
    waves_per_wg = max(1, -(-team_size // WAVE_SIZE))
    lim_vgpr = MAX_WAVES_PER_SIMD if vgpr_total < VGPR_GRANULE else min(
        MAX_WAVES_PER_SIMD, VGPRS_PER_SIMD_LANE // roundup(vgpr_total, VGPR_GRANULE))
    lim_sgpr = MAX_WAVES_PER_SIMD if sgpr <= 100 else min(MAX_WAVES_PER_SIMD, 7)
    lim_reg = min(lim_vgpr, lim_sgpr)
    slots = waves_per_wg if waves_per_wg < SIMDS_PER_CU else SIMDS_PER_CU * -(-waves_per_wg // SIMDS_PER_CU)
    limits = {
        "vgpr": (SIMDS_PER_CU * lim_vgpr) // slots,
        "sgpr": (SIMDS_PER_CU * lim_sgpr) // slots,
        "lds": LDS_PER_CU // roundup(lds_bytes, LDS_GRANULE) if lds_bytes else 10 ** 9,
        "workgroups": MAX_WORKGROUPS_PER_CU_MULTIWAVE if waves_per_wg > 1 else MAX_WAVES_PER_CU,
        "waves/CU": MAX_WAVES_PER_CU // waves_per_wg,
    }
    wg = min(limits.values())
    limiter = min(limits, key=lambda k: limits[k])
    waves = min(lim_reg, wg * waves_per_wg / SIMDS_PER_CU)
    if waves >= MAX_WAVES_PER_SIMD:
        limiter = "none (8 waves is the most)"
    elif not wg:
        limiter = "does not fit"
    return {"waves_per_simd": waves, "workgroups_per_cu": wg, "limiter": limiter,
            "waves_per_workgroup": waves_per_wg, "vgpr_limit": lim_vgpr, "sgpr_limit": lim_sgpr,
            "lds_per_workgroup": lds_bytes}


def peak_per_simd_clock(dev, unit, dtype):
    peak = dev[unit].get(dtype)
    if not peak:
        return None
    return peak / (dev["cus"] * SIMDS_PER_CU * dev["clock_ghz"] * 1e9)


def static_bound(mix, waves, target, dtype):
    """Matrix-core issue rate the loop allows, in % of the matrix peak for dtype (ESTIMATE)."""
    dev_key, table, arch = TARGET_DEVICE.get(target, (None, MFMA_CDNA2, "CDNA2"))
    notes = []
    c_mfma = flops_mfma = 0
    coexec = True
    for mn, count in mix["mfma"].items():
        key = mfma_key(mn)
        entry = table.get(key)
        if entry is None and table is not MFMA_CDNA2:
            alt = key[:4] + (key[4] + "_1k",) if key and key[4] == "bf16" else key
            entry = table.get(alt) or MFMA_CDNA2.get(alt) or MFMA_CDNA2.get(key)
            if entry is not None and table.get(alt) is None:
                notes.append("%s: CDNA2 cycles reused" % mn)
        if entry is None:
            notes.append("%s: no cycle count known" % mn)
            return None, notes
        cycles, blocks, co = entry
        c_mfma += cycles * count
        flops_mfma += 2 * key[1] * key[2] * key[3] * blocks * count  # per wave: the wave owns the matrix
        coexec = coexec and co
    c_valu = VALU_CYCLES * mix["valu"]
    pipe = (max(c_mfma, c_valu) if coexec else c_mfma + c_valu) if c_mfma else c_valu
    w = max(waves, 1e-9)
    lds_bytes = WAVE_SIZE * (mix["lds_read_bytes"] + mix["lds_write_bytes"])
    t = max(ISSUE_CYCLES_PER_INSTRUCTION * mix["total"], w * pipe,
            w * lds_bytes / (LDS_BYTES_PER_CLOCK_PER_CU / SIMDS_PER_CU))
    if t <= 0 or dev_key is None or dtype is None:
        return None, notes
    dev = DEVICES[dev_key]
    peak = peak_per_simd_clock(dev, "matrix", dtype)
    if not peak:
        return None, notes + ["no matrix peak for %s" % dtype]
    flops = flops_mfma if c_mfma else mix["fma_flops_per_lane"] * WAVE_SIZE
    limiter = max((ISSUE_CYCLES_PER_INSTRUCTION * mix["total"], "issue"), (w * pipe, "mfma" if c_mfma else "valu"),
                  (w * lds_bytes / (LDS_BYTES_PER_CLOCK_PER_CU / SIMDS_PER_CU), "lds"))[1]
    # The datasheet peaks are rounded (47.85 TF/s against 64 FLOP/clk/SIMD * 440 SIMDs * 1.7 GHz), so a
    # saturated matrix core can come out a hair above 100%: clamp.
    return {"percent_of_matrix_peak": min(100.0, 100.0 * w * flops / t / peak), "cycles_per_iteration_per_simd": t,
            "mfma_cycles": c_mfma, "valu_cycles": c_valu, "lds_bytes_per_wave": lds_bytes,
            "limiter": limiter, "arch_cycles": arch}, notes


def roofline(target, dtype, elem_bytes, cplx, kind, shape):
    dev_key = TARGET_DEVICE.get(target, (None,))[0]
    if dev_key is None or dtype is None or not elem_bytes:
        return None
    dev = DEVICES[dev_key]
    peak = dev["matrix"].get(dtype)
    if not peak:
        return None
    m, n, k = shape
    factor = 8 if cplx else 2
    if kind == "gemv":
        flops, bytes_ = factor * m * n, elem_bytes * (m * n + n + 2 * m)
    else:
        flops, bytes_ = factor * m * n * k, elem_bytes * (m * k + k * n + 2 * m * n)
    ai = flops / bytes_
    return {"intensity": ai, "percent_of_matrix_peak": 100.0 * min(peak, ai * dev["dram_bw"]) / peak,
            "device": dev_key}


# --------------------------------------------------------------------------------------------------
# Device specs: re-read backends/hip/device_specs.hpp so the hard-coded copy cannot drift silently.

def load_device_specs(path, warnings):
    if not os.path.exists(path):
        return
    src = strip_comments(open(path).read())

    def block(fn):
        m = re.search(r"DeviceSpec\s+%s\s*\(\s*\)\s*\{" % fn, src)
        if not m:
            return None
        return src[m.end():matching_brace(src, m.end() - 1)]

    def parse(body):
        out = {"matrix": {}, "vector": {}}
        m = re.search(r"compute_units\s*=\s*(\d+)", body)
        out["cus"] = int(m.group(1)) if m else None
        m = re.search(r"boost_clock_ghz\s*=\s*([\d.]+)", body)
        out["clock_ghz"] = float(m.group(1)) if m else None
        m = re.search(r"dram_bw_bytes_per_s\s*=\s*([\d.]+)\s*\*\s*kTera", body)
        out["dram_bw"] = float(m.group(1)) * 1e12 if m else None
        for dt, unit, val in re.findall(r"set_peak_flops\(DType::(\w+),\s*Unit::(\w+),\s*([\d.]+)\s*\*\s*kTera", body):
            out[unit][dt] = float(val) * 1e12
        return out

    pkg, mi300 = block("mi250x_package"), block("mi300x")
    parsed = {}
    if pkg:
        p = parse(pkg)
        # mi250x_gcd() halves every package figure but the clock.
        parsed["mi250x-gcd"] = {"cus": p["cus"] // 2 if p["cus"] else None, "clock_ghz": p["clock_ghz"],
                                "dram_bw": p["dram_bw"] / 2 if p["dram_bw"] else None,
                                "matrix": {k: v / 2 for k, v in p["matrix"].items()},
                                "vector": {k: v / 2 for k, v in p["vector"].items()}}
    if mi300:
        parsed["mi300x"] = parse(mi300)
    for key, spec in parsed.items():
        mine = DEVICES[key]
        for field in ("cus", "clock_ghz", "dram_bw"):
            if spec[field] and abs(spec[field] - mine[field]) > 1e-6 * mine[field]:
                warnings.append("device_specs.hpp %s.%s = %s, the script has %s: update DEVICES" % (
                    key, field, spec[field], mine[field]))
        for unit in ("matrix", "vector"):
            for dt, v in spec[unit].items():
                if dt in mine[unit] and abs(v - mine[unit][dt]) > 1e-3 * v:
                    warnings.append("device_specs.hpp %s %s %s peak = %g, the script has %g: update DEVICES"
                                    % (key, unit, dt, v, mine[unit][dt]))


def check_cycle_tables(warnings):
    """The best MFMA rate per dtype times the device's CUs and clock must give its matrix peak."""
    best = {}
    for table, dev_key in ((MFMA_CDNA2, "mi250x-gcd"), (MFMA_CDNA3, "mi300x")):
        dev = DEVICES[dev_key]
        for key, (cycles, blocks, _) in table.items():
            dt = {"f64": "fp64", "f32": "fp32", "f16": "fp16", "bf16_1k": "bf16"}.get(key[4])
            if dt:
                rate = 2 * key[1] * key[2] * key[3] * blocks / cycles
                best[(dev_key, dt)] = max(best.get((dev_key, dt), 0), rate)
        for (dk, dt), rate in best.items():
            if dk != dev_key:
                continue
            peak = peak_per_simd_clock(dev, "matrix", dt)
            if peak and abs(rate - peak) > 0.02 * peak:
                warnings.append("MFMA table for %s: best %s rate %.1f FLOP/clk/SIMD, spec peak %.1f"
                                % (dev_key, dt, rate, peak))


# --------------------------------------------------------------------------------------------------
# Spill baseline: kernels that already spill when the check was introduced, with their figures. A
# kernel that spills and is not listed, or spills more than listed, fails.

def read_baseline(path):
    base = {}
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split()
            if len(parts) != 5:
                raise ReportError("%s: expected 'target symbol scratch vgpr_spill sgpr_spill': %s" % (path, line))
            base[(parts[0], parts[1])] = tuple(int(x) for x in parts[2:])
    return base


# --------------------------------------------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="Exit status: 0 all checks pass, 1 a check failed, 2 the report "
                                        "could not be made.")
    ap.add_argument("inputs", nargs="+", help="HIP executables, objects, archives, bundles or code objects")
    ap.add_argument("--table", action="append", help="tile table header(s) (default: %s)" %
                    os.path.relpath(DEFAULT_TABLE, ROOT))
    ap.add_argument("--json", help="write the report as JSON to this path")
    ap.add_argument("--shape", default="8192,8192,8192", help="M,N,K for the roofline column (GEMV uses M,N)")
    ap.add_argument("--spill-baseline", help="file of kernels allowed to keep their current spills")
    ap.add_argument("--write-spill-baseline", help="write the spilling GEMM/GEMV kernels to this file")
    ap.add_argument("--llvm-bin", default=os.environ.get("RIDGELINE_LLVM_BIN"), help="folder of llvm-objdump etc.")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--all-kernels", action="store_true", help="also list kernels that are not GEMM/GEMV")
    args = ap.parse_args(argv)
    started = time.time()
    try:
        return run(args, started)
    except ReportError as e:
        print("hip_code_objects: error: %s" % e, file=sys.stderr)
        return 2
    except Exception:  # a bug or an input the script does not understand: not a failed check
        import traceback
        traceback.print_exc()
        print("hip_code_objects: internal error (exit 2, not a check failure)", file=sys.stderr)
        return 2


def run(args, started):
    warnings, failures = [], []
    shape = tuple(int(x) for x in args.shape.split(","))
    if len(shape) != 3:
        raise ReportError("--shape takes M,N,K")
    readelf = find_tool("llvm-readelf", args.llvm_bin)
    objdump = find_tool("llvm-objdump", args.llvm_bin)
    cxxfilt = find_tool("llvm-cxxfilt", args.llvm_bin)
    load_device_specs(DEVICE_SPECS_HPP, warnings)
    check_cycle_tables(warnings)
    tables = [os.path.abspath(t) for t in (args.table or [DEFAULT_TABLE])]
    # The backend's other headers define what the table's entries refer to (instruction structs, bases).
    hip_dir = os.path.dirname(DEFAULT_TABLE)
    defs = [os.path.join(hip_dir, f) for f in sorted(os.listdir(hip_dir))
            if f.endswith(".hpp") and os.path.join(hip_dir, f) not in tables] if os.path.isdir(hip_dir) else []
    table, aliases = parse_table(tables, defs)

    # 1. Code objects, deduplicated by content (every test binary links the same dispatch TUs).
    cos = {}
    for path in args.inputs:
        if not os.path.exists(path):
            raise ReportError("%s does not exist" % path)
        for triple, co, where in code_objects_of(path):
            digest = hashlib.sha1(co).hexdigest()
            entry = cos.setdefault(digest, {"target": target_of_triple(triple), "bytes": co, "sources": []})
            entry["sources"].append(where)
    if not cos:
        raise ReportError("no AMDGPU code objects in %s" % " ".join(args.inputs))
    tmp = tempfile.mkdtemp(prefix="hip_code_objects.")
    try:
        for digest, c in cos.items():
            c["path"] = os.path.join(tmp, digest[:16] + ".co")
            with open(c["path"], "wb") as f:
                f.write(c["bytes"])

        # 2. Metadata of every code object (cheap), kernels deduplicated by (target, symbol).
        def notes(c):
            out = subprocess.run([readelf, "--notes", c["path"]], capture_output=True, text=True)
            if out.returncode:
                raise ReportError("llvm-readelf --notes %s: %s" % (c["sources"][0], out.stderr.strip()))
            return parse_notes(out.stdout)

        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            metas = dict(zip(cos, pool.map(lambda d: notes(cos[d]), list(cos))))
        kernels = {}
        for digest, klist in metas.items():
            c = cos[digest]
            kds = kernel_descriptors(c["bytes"])
            for k in klist:
                key = (c["target"], k.get("name", ""))
                res = (k.get("vgpr_count", 0), k.get("agpr_count", 0), k.get("sgpr_count", 0),
                       k.get("private_segment_fixed_size", 0), k.get("vgpr_spill_count", 0),
                       k.get("sgpr_spill_count", 0))
                if key in kernels:
                    kernels[key]["copies"] += 1
                    if res != kernels[key]["res"]:
                        kernels[key]["differs"] = True
                        # Checks use the worst copy.
                        kernels[key]["res"] = tuple(max(a, b) for a, b in zip(res, kernels[key]["res"]))
                    continue
                kernels[key] = {"target": c["target"], "symbol": key[1], "meta": k, "res": res, "co": digest,
                                "kd": kds.get(key[1]), "copies": 1, "differs": False}
        if not kernels:
            raise ReportError("the code objects hold no kernels")

        # 3. Names: demangle once, in one process.
        symbols = [k["symbol"] for k in kernels.values()]
        out = subprocess.run([cxxfilt], input="\n".join(symbols) + "\n", capture_output=True, text=True)
        demangled = out.stdout.splitlines()
        if len(demangled) != len(symbols):
            raise ReportError("llvm-cxxfilt returned %d names for %d symbols" % (len(demangled), len(symbols)))
        for k, dem in zip(kernels.values(), demangled):
            k["demangled"] = dem
            chain = functor_chain(functor_of(dem))
            k["chain"] = chain
            k["gemm"] = is_gemm_gemv(chain)
            inner_name, inner_args = chain[-1]
            k["kind"] = "gemv" if re.search(r"::Gemv\w*$", inner_name) else "gemm"
            cfg = inner_args[1] if len(inner_args) > 1 else ""
            k["entry"] = None
            if k["gemm"]:
                try:
                    k["entry"] = lookup_entry(cfg, table, aliases)
                except ReportError as e:
                    failures.append("%s [%s]: %s" % (short_kernel_name(k, None), k["target"], e))
                    k["entry_error"] = str(e)
            elem = inner_args[2] if len(inner_args) > 2 else ""
            k["dtype"], k["elem_bytes"], k["complex"] = dtype_of(elem)
            k["name"] = short_kernel_name(k, k["entry"])

        # 4. Disassemble the GEMM/GEMV kernels only, split over the workers.
        tasks = []
        by_co = {}
        for k in kernels.values():
            if k["gemm"]:
                by_co.setdefault(k["co"], []).append(k["symbol"])
        for digest, syms in by_co.items():
            n = max(1, min(len(syms), args.jobs * 2 if len(syms) > 8 else 1))
            for i in range(n):
                chunk = syms[i::n]
                if chunk:
                    tasks.append((digest, chunk))

        def disassemble(task):
            digest, chunk = task
            c = cos[digest]
            cmd = [objdump, "-d", "--mcpu=" + c["target"], "--disassemble-symbols=" + ",".join(chunk), c["path"]]
            # llvm-objdump writes line by line: into a file that costs far less than through a pipe.
            with tempfile.TemporaryFile(mode="w+", dir=tmp) as out:
                res = subprocess.run(cmd, stdout=out, stderr=subprocess.PIPE, text=True)
                if res.returncode:
                    raise ReportError("llvm-objdump on %s: %s" % (c["sources"][0], res.stderr.strip()[:400]))
                out.seek(0)
                return parse_disassembly(out.read())

        code = {}
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            for (digest, _), funcs in zip(tasks, pool.map(disassemble, tasks)):
                for sym, instrs in funcs.items():
                    code[(cos[digest]["target"], sym)] = instrs

        # 5. Per kernel: resources, occupancy, K loop, bound, checks.
        baseline = read_baseline(args.spill_baseline) if args.spill_baseline else None
        rows, other_spills, spilling = [], [], []
        for key, k in sorted(kernels.items(), key=lambda kv: (kv[1]["target"], kv[1].get("name", ""))):
            vgpr, agpr, sgpr, scratch, vspill, sspill = k["res"]
            meta = k["meta"]
            spills = scratch > 0 or vspill > 0 or sspill > 0
            if not k["gemm"]:
                if spills:
                    other_spills.append({"target": k["target"], "kernel": k["demangled"], "scratch": scratch,
                                         "vgpr_spill": vspill, "sgpr_spill": sspill})
                if not args.all_kernels:
                    continue
            entry = k["entry"]
            row = {"target": k["target"], "kernel": k["name"], "symbol": k["symbol"], "demangled": k["demangled"],
                   "entry": entry.name if entry else None, "vgpr_total": vgpr, "agpr": agpr,
                   "vgpr": vgpr - agpr if agpr else vgpr, "sgpr": sgpr,
                   "lds_static": meta.get("group_segment_fixed_size", 0), "scratch": scratch,
                   "vgpr_spill": vspill, "sgpr_spill": sspill, "copies": k["copies"],
                   "copies_differ": k["differs"], "dtype": k["dtype"], "gemm_gemv": k["gemm"]}
            if k["kd"]:
                granules, accum_offset = k["kd"]
                row["vgpr_allocated"] = granules * VGPR_GRANULE
                if agpr:
                    row["vgpr"] = accum_offset  # the architectural VGPRs, rounded to 4, as allocated
                if granules * VGPR_GRANULE != roundup(max(vgpr, 1), VGPR_GRANULE):
                    warnings.append("%s: kernel descriptor allocates %d VGPRs, metadata says %d" % (
                        k["name"], granules * VGPR_GRANULE, vgpr))
            # Team size and LDS per workgroup.
            team, team_from = meta.get("max_flat_workgroup_size", 1024), "metadata"
            lds_dyn, lds_from = 0, "static only"
            is_mfma_entry = False
            claim = None
            if entry is not None:
                try:
                    if entry.has("team_size"):
                        team, team_from = int(entry.get("team_size")), "entry"
                    level = entry.get("scratch_level", 0) if entry.has("scratch_level") else 0
                    for field in ("lds_bytes", "scratch_bytes"):
                        if entry.has(field):
                            lds_dyn, lds_from = (int(entry.get(field)) if level == 0 else 0), "entry." + field
                            break
                    tiled = any(n.endswith("::GemmTeamTiled") for n, _ in k["chain"])
                    if tiled and k["elem_bytes"]:
                        formula = gemm_team_tiled_lds(entry, k["elem_bytes"], acc_bytes(k))
                        if formula is not None:
                            if lds_from.startswith("entry.") and lds_dyn != formula:
                                warnings.append("%s: entry %s says %s = %d, GemmTeamTiled::scratch_bytes() "
                                                "gives %d" % (k["name"], entry.name, lds_from[6:], lds_dyn, formula))
                            elif not lds_from.startswith("entry."):
                                lds_dyn, lds_from = (formula if level == 0 else 0), "GemmTeamTiled formula"
                    mu = bool(entry.get("matrix_unit")) if entry.has("matrix_unit") else False
                    mk = entry.get("micro_kernel_name") if entry.has("micro_kernel_name") else None
                    mk_mfma = isinstance(mk, str) and mk.startswith("mfma")
                    is_mfma_entry = mu or mk_mfma
                    if mu != mk_mfma and (entry.has("matrix_unit") or mk_mfma):
                        warnings.append("%s: entry %s has matrix_unit=%s but micro_kernel_name=%r" % (
                            k["name"], entry.name, mu, mk))
                    if entry.has("waves_per_simd"):
                        claim = int(entry.get("waves_per_simd"))
                except ReportError as e:
                        failures.append("%s [%s]: %s" % (k["name"], k["target"], e))
            bound = meta.get("max_flat_workgroup_size")
            if team_from == "entry" and bound and team > bound:
                # GemmTeamTiled launches with LaunchBounds<Cfg::team_size, ...>: in one build the two
                # agree, so this means the binaries are older than the table (or a kernel ignores it).
                warnings.append("%s: entry %s has team_size %d but the kernel's launch bound is %d: are the "
                                "binaries older than the table?" % (k["name"], entry.name, team, bound))
            kokkos_team = "hip_parallel_launch" in k["demangled"] and "TeamPolicy" in k["demangled"]
            lds_total = row["lds_static"] + lds_dyn + (8 * (team + 2) if kokkos_team else 0)
            occ = occupancy(vgpr, sgpr, lds_total, team)
            row.update({"team_size": team, "team_size_from": team_from, "lds_per_workgroup": lds_total,
                        "lds_dynamic_from": lds_from, "waves_per_simd": occ["waves_per_simd"],
                        "occupancy_limiter": occ["limiter"], "workgroups_per_cu": occ["workgroups_per_cu"],
                        "claimed_waves_per_simd": claim, "mfma_entry": is_mfma_entry})
            # K loop.
            instrs = code.get(key)
            mix = None
            if k["gemm"]:
                if instrs is None:
                    failures.append("%s: not found in the disassembly" % k["name"])
                else:
                    has_mfma = any(mn.startswith("v_mfma") for _, mn, _ in instrs)
                    lp, alternatives = k_loop(instrs, want_mfma=is_mfma_entry or has_mfma)
                    if lp is not None:
                        row["k_loop_alternatives"] = [
                            {"header": "0x%x" % a["header"], "mfma": a["mix"]["mfma"], "fma": a["mix"]["fma"],
                             "total": a["mix"]["total"]} for a in alternatives]
                        mix = lp["mix"]
                        row["k_loop"] = {"header": "0x%x" % lp["header"], **{
                            x: mix[x] for x in ("mfma", "lds_read", "lds_write", "lds_read_bytes", "lds_write_bytes",
                                                "global_load", "barrier", "fma", "valu", "scratch_ops", "total")}}
                        if mix["mfma"]:
                            # The instruction says what the matrix core computes; the symbol's element
                            # type may be a storage type (short for bf16).
                            main_op = max(mix["mfma"], key=lambda m: mix["mfma"][m])
                            in_type = (mfma_key(main_op) or (None,) * 5)[4]
                            k["dtype"] = {"f64": "fp64", "f32": "fp32", "f16": "fp16", "bf16": "bf16",
                                          "bf16_1k": "bf16"}.get(in_type, k["dtype"])
                            row["dtype"] = k["dtype"]
                            if not k["elem_bytes"]:
                                k["elem_bytes"] = {"fp64": 8, "fp32": 4}.get(k["dtype"], 2)
                        bound, notes = static_bound(mix, occ["waves_per_simd"], k["target"], k["dtype"])
                        row["static_bound"] = bound
                        row["static_bound_notes"] = notes
                    row["roofline"] = roofline(k["target"], k["dtype"], k["elem_bytes"], k["complex"],
                                               k["kind"], shape)
            # Checks.
            if k["gemm"]:
                if is_mfma_entry and (mix is None or not mix["mfma"]):
                    failures.append("%s [%s]: entry %s says MFMA (matrix_unit / micro_kernel_name) but %s" % (
                        k["name"], k["target"], entry.name,
                        "the kernel has no loop" if mix is None else
                        "no loop of the kernel holds a v_mfma (K loop taken: %s, %d instructions, %d FMA)" % (
                            row["k_loop"]["header"], mix["total"], mix["fma"])))
                if spills:
                    spilling.append((k["target"], k["symbol"], scratch, vspill, sspill, k["name"]))
                    allowed = baseline.get((k["target"], k["symbol"])) if baseline is not None else None
                    what = "scratch %d B, %d VGPR and %d SGPR spills" % (scratch, vspill, sspill)
                    if allowed is None:
                        failures.append("%s [%s]: spills (%s)" % (k["name"], k["target"], what))
                        row["spill_status"] = "FAIL"
                    elif scratch > allowed[0] or vspill > allowed[1] or sspill > allowed[2]:
                        failures.append("%s [%s]: spills more than its baseline (%s, baseline %s)" % (
                            k["name"], k["target"], what, allowed))
                        row["spill_status"] = "FAIL"
                    else:
                        row["spill_status"] = "baseline"
                if claim is not None:
                    if lds_from == "static only":
                        failures.append("%s [%s]: entry %s claims %d waves/SIMD but has no lds_bytes (or "
                                        "scratch_bytes): its LDS per team, which the code object does not show, is "
                                        "needed to check the claim" % (k["name"], k["target"], entry.name, claim))
                    elif occ["waves_per_simd"] + 1e-9 < claim:
                        failures.append("%s [%s]: %.2g waves/SIMD (limited by %s: %d VGPR, %d SGPR, %d B LDS per "
                                        "team of %d) is below the %d that entry %s claims" % (
                                            k["name"], k["target"], occ["waves_per_simd"], occ["limiter"], vgpr, sgpr,
                                            lds_total, team, claim, entry.name))
            rows.append(row)

        if baseline is not None:
            now = {(t, s) for t, s, *_ in spilling}
            for key in baseline:
                if key not in now:
                    warnings.append("spill baseline entry no longer spills or is not in these binaries: %s %s"
                                    % (key[0], key[1][:100]))
        if args.write_spill_baseline:
            with open(args.write_spill_baseline, "w") as f:
                f.write("# target symbol scratch_bytes vgpr_spills sgpr_spills   (scripts/hip_code_objects.py "
                        "--write-spill-baseline)\n")
                for t, s, sc, vs, ss, name in sorted(spilling):
                    f.write("# %s\n%s %s %d %d %d\n" % (name, t, s, sc, vs, ss))

        print_report(rows, other_spills, warnings, failures, shape, args)
        elapsed = time.time() - started
        report = {"note": ESTIMATE_NOTE, "inputs": args.inputs, "tables": tables, "shape": shape,
                  "code_objects": [{"target": c["target"], "sha1": d, "sources": c["sources"]} for d, c in cos.items()],
                  "model": model_description(), "kernels": rows, "other_kernels_with_scratch": other_spills,
                  "warnings": warnings, "failures": failures, "seconds": round(elapsed, 2)}
        if args.json:
            with open(args.json, "w") as f:
                json.dump(report, f, indent=1, default=str)
        print("%d code objects, %d kernels, %d GEMM/GEMV rows, %.1f s" % (
            len(cos), len(kernels), sum(1 for r in rows if r["gemm_gemv"]), elapsed))
        if failures:
            print("\nhip_code_objects: %d check(s) FAILED:" % len(failures), file=sys.stderr)
            for f_ in failures:
                print("  FAIL " + f_, file=sys.stderr)
            return 1
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def short_kernel_name(k, entry):
    """'Entry Functor<args after the config>', wrappers prefixed: readable and unique enough."""
    chain = k["chain"]
    inner_name, inner_args = chain[-1]
    wrappers = ">".join(n.rsplit("::", 1)[-1] for n, _ in chain[:-1])
    rest = ",".join(short_type(a) for a in inner_args[2:])
    cfg = inner_args[1] if len(inner_args) > 1 else ""
    if not k.get("gemm"):
        return short_type(functor_of(k.get("demangled", "")) or k.get("demangled", ""))
    if entry is not None:
        label = entry.display
    elif cfg.startswith(HIP_NS):
        label = short_type(cfg) + "(?)"  # names the backend but is missing from the table: a failure
    else:
        label = "test:" + short_type(cfg) if cfg else "-"  # a test's own configuration
    return "%s %s%s<%s>" % (label, wrappers + ">" if wrappers else "", inner_name.rsplit("::", 1)[-1], rest)


def model_description():
    return {
        "occupancy": {"vgprs_per_simd_lane": VGPRS_PER_SIMD_LANE, "vgpr_granule": VGPR_GRANULE,
                      "agpr_offset_granule": AGPR_OFFSET_GRANULE, "max_waves_per_simd": MAX_WAVES_PER_SIMD,
                      "lds_per_cu": LDS_PER_CU, "lds_granule": LDS_GRANULE, "simds_per_cu": SIMDS_PER_CU,
                      "max_workgroups_per_cu_multiwave": MAX_WORKGROUPS_PER_CU_MULTIWAVE,
                      "sgpr_rule": "<=100 SGPRs: 8 waves, else 7"},
        "bound": {"issue_cycles_per_instruction": ISSUE_CYCLES_PER_INSTRUCTION, "valu_cycles": VALU_CYCLES,
                  "lds_bytes_per_clock_per_cu": LDS_BYTES_PER_CLOCK_PER_CU,
                  "formula": "T = max(4*instr, W*pipe, W*lds_bytes/32); pipe = mfma+valu (FP64 MFMA) or "
                             "max(mfma, valu); bound = W*flops/T / peak_per_simd_clock"},
        "mfma_cdna2": {"%s_%dx%dx%d_%s" % k: {"cycles": v[0], "blocks": v[1], "coexec": v[2]}
                       for k, v in MFMA_CDNA2.items()},
        "mfma_cdna3": {"%s_%dx%dx%d_%s" % k: {"cycles": v[0], "blocks": v[1], "coexec": v[2]}
                       for k, v in MFMA_CDNA3.items()},
        "devices": DEVICES,
    }


def print_report(rows, other_spills, warnings, failures, shape, args):
    print(ESTIMATE_NOTE)
    print("Roofline shape M,N,K = %s; waves/SIMD from the registers, the LDS per team (static + table "
          "entry + Kokkos) and the team size ('*': from the launch bound, the entry has no team_size)."
          % ",".join(map(str, shape)))
    head = ("target", "kernel", "VGPR", "AGPR", "SGPR", "LDS", "scr", "spill", "team", "w/SIMD", "claim",
            "mfma", "ldsR", "ldsW", "gld", "bar", "scrop", "instr", "est%", "roof%")
    table = []
    for r in rows:
        lp = r.get("k_loop") or {}
        sb = r.get("static_bound") or {}
        rf = r.get("roofline") or {}
        mf = lp.get("mfma", {})
        mfma = "+".join("%d%s" % (c, re.sub(r"^v_mfma_", ":", m)) for m, c in sorted(mf.items())) if mf else (
            "0" if lp else "-")
        table.append((
            r["target"], r["kernel"], str(r["vgpr"]), str(r["agpr"]), str(r["sgpr"]), str(r["lds_per_workgroup"]),
            str(r["scratch"]) + ("!" if r.get("spill_status") == "FAIL" else "~" if r.get("spill_status") else ""),
            "%d/%d" % (r["vgpr_spill"], r["sgpr_spill"]) if r["vgpr_spill"] or r["sgpr_spill"] else "-",
            str(r["team_size"]) + ("" if r["team_size_from"] == "entry" else "*"),
            "%.3g" % r["waves_per_simd"],
            "-" if r["claimed_waves_per_simd"] is None else str(r["claimed_waves_per_simd"]),
            mfma, str(lp.get("lds_read", "-")), str(lp.get("lds_write", "-")), str(lp.get("global_load", "-")),
            str(lp.get("barrier", "-")), str(lp.get("scratch_ops", "-")), str(lp.get("total", "-")),
            ("%.1f" % sb["percent_of_matrix_peak"] if sb else "-") + ("^" if r.get("static_bound_notes") else ""),
            "%.1f" % rf["percent_of_matrix_peak"] if rf else "-"))
    widths = [max(len(h), *(len(t[i]) for t in table)) if table else len(h) for i, h in enumerate(head)]
    widths[1] = min(widths[1], 96)
    fmt = "  ".join("%%-%ds" % w if i < 2 else "%%%ds" % w for i, w in enumerate(widths))
    print(fmt % head)
    for t in table:
        t = list(t)
        if len(t[1]) > widths[1]:
            t[1] = t[1][:widths[1] - 1] + "~"
        print(fmt % tuple(t))
    print("scr: scratch bytes per work-item, spill: VGPR/SGPR spill counts ('~' in the spill baseline, '!' "
          "failing); LDS: bytes per workgroup; mfma ldsR ldsW gld bar scrop instr: v_mfma (by opcode), LDS "
          "reads, LDS writes, global loads, barriers, scratch accesses and all instructions in one iteration "
          "of the K loop (static counts).")
    notes = sorted({n for r in rows for n in r.get("static_bound_notes") or []})
    if notes:
        print("^: " + "; ".join(notes))
    if other_spills:
        print("\nOther kernels with scratch or spills (reported, not checked): %d" % len(other_spills))
        for s in other_spills:
            print("  %s scratch %d B, spills %d/%d: %s" % (s["target"], s["scratch"], s["vgpr_spill"],
                                                          s["sgpr_spill"], s["kernel"][:150]))
    for w in warnings:
        print("warning: " + w)


if __name__ == "__main__":
    sys.exit(main())
