#!/usr/bin/env python3
"""Join ridgeline-perf's CSV with cublas_baseline's CSV from the same GPU run.

Rows are matched by (op, trans, shape, dtype); a strided batch's shape carries its count
("32x32x32:batch=30000"), so it never joins the single product of its extents. For every Ridgeline row the merged table gives
Ridgeline / cuBLAS and Ridgeline / Kokkos Kernels as GFLOP/s ratios (> 1: Ridgeline is faster), and
checks Ridgeline's result against cuBLAS's through the norm and +-1 probe both programs record for
their check run on identical inputs. Writes <prefix>.csv, <prefix>.json and <prefix>.md.

    perf/merge_results.py --ridgeline ridgeline.csv --cublas cublas.csv --out merged

Standard library only.
"""
import argparse
import csv
import json
import math
import sys

KEY = ("op", "trans", "shape", "dtype")
# fp16/bf16/tf32 inputs are exact in their format and their products exact in float: FP32
# accumulation is the only error, as in shape_spec.hpp check_tolerance.
EPS = {"fp32": 5.96e-8, "fp64": 1.11e-16, "fp16": 5.96e-8, "bf16": 5.96e-8, "tf32": 5.96e-8,
       "cf32": 5.96e-8, "cf64": 1.11e-16}


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def num(row, col):
    try:
        v = float(row.get(col, "") or "nan")
    except ValueError:
        return math.nan
    return v


def key_of(row):
    return tuple(row[k] for k in KEY)


def reduction_len(row):
    if row["op"] == "gemm":
        return int(row["k"])
    # GEMV: x has n entries for "N" and m for "T" and "C".
    return int(row["n"]) if row["trans"] == "N" else int(row["m"])


def tolerance(row):
    """The same bound ridgeline-perf uses (shape_spec.hpp check_tolerance): each part of a complex dot
    product of length K is a real one of length 2K."""
    length = reduction_len(row) * (2 if row["dtype"] in ("cf32", "cf64") else 1)
    return 4.0 * (length + 2) * EPS[row["dtype"]]


def check_against(mine, other):
    """Compare two check runs on identical inputs through (norm, probe).

    A probe is sum_i w_i out_i with w_i = +-1; two results that differ by E differ in the probe by
    about ||E||_F, while a wrong result moves it by about ||out||_F. Returns (status, error).
    """
    n1, p1 = num(mine, "out_norm"), num(mine, "out_probe")
    n2, p2 = num(other, "out_norm"), num(other, "out_probe")
    if any(math.isnan(v) for v in (n1, p1, n2, p2)):
        return "-", math.nan
    scale = max(n2, 1e-300)
    err = max(abs(n1 - n2), abs(p1 - p2)) / scale
    return ("ok" if err <= tolerance(mine) else "MISMATCH"), err


def ratio(a, b):
    return a / b if a > 0 and b > 0 and not math.isnan(a) and not math.isnan(b) else math.nan


def fmt(v, spec):
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else format(v, spec)


def pair(a, b, spec):
    """'a / b' for two numbers of one column (Ridgeline / cuBLAS), '-' for a missing one."""
    return f"{fmt(a, spec)} / {fmt(b, spec)}"


def frac(a, b):
    return a / b if b > 0 and not math.isnan(a) and not math.isnan(b) else math.nan


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ridgeline", required=True, help="ridgeline-perf --csv output")
    ap.add_argument("--cublas", required=True, help="cublas_baseline --csv output")
    ap.add_argument("--out", required=True, help="output prefix: writes PREFIX.csv, PREFIX.json, PREFIX.md")
    args = ap.parse_args(argv)

    rl_rows = read_rows(args.ridgeline)
    cb_rows = read_rows(args.cublas)
    cublas = {}
    for r in cb_rows:
        cublas.setdefault(key_of(r), {})[r["math"]] = r
    by_key = {}
    for r in rl_rows:
        by_key.setdefault(key_of(r), {})[r["impl"]] = r

    merged = []
    for key, impls in by_key.items():
        rl = impls.get("ridgeline")
        if rl is None:
            continue
        kk = impls.get("kokkos-kernels")
        team = impls.get("ridgeline-team_gemm")  # batched rows: team_gemm in a user's TeamPolicy
        cb = cublas.get(key, {})
        # FP32 and GEMV compare with the pedantic (no TF32) run when there is one; FP64 GEMM has
        # both: "default" may use FP64 tensor cores, "pedantic" is the like-for-like SIMT number.
        cb_ped = cb.get("pedantic")
        cb_def = cb.get("default")
        cb_ref = cb_ped or cb_def
        g = num(rl, "gflops")
        status, err = check_against(rl, cb_ref) if cb_ref else ("-", math.nan)
        gemv = rl["op"] == "gemv"
        # Fractions of the datasheet peak (GEMM: the dtype's FLOP/s, GEMV: DRAM bandwidth) and, for
        # GEMV, of the copy bandwidth ridgeline-perf measured in its run; cuBLAS's from the same figures.
        peak = num(rl, "peak_gbs") if gemv else num(rl, "peak_gflops")
        copy_gbs = num(rl, "copy_gbs")
        cb_metric = num(cb_ref, "gbs" if gemv else "gflops") if cb_ref else math.nan
        merged.append({
            "op": rl["op"], "trans": rl["trans"], "shape": rl["shape"], "dtype": rl["dtype"],
            "ridgeline_ms": num(rl, "median_ms"),
            "ridgeline_gflops": g,
            "ridgeline_gbs": num(rl, "gbs"),
            "kokkos_kernels_gflops": num(kk, "gflops") if kk else math.nan,
            "team_gemm_gflops": num(team, "gflops") if team else math.nan,
            "team_gemm_over_batched": ratio(num(team, "gflops"), g) if team else math.nan,
            "check_team_gemm": team.get("check", "") if team else "",
            "cublas_pedantic_gflops": num(cb_ped, "gflops") if cb_ped else math.nan,
            "cublas_default_gflops": num(cb_def, "gflops") if cb_def else math.nan,
            "ratio_cublas": ratio(g, num(cb_ref, "gflops")) if cb_ref else math.nan,
            "ratio_cublas_default": ratio(g, num(cb_def, "gflops")) if cb_def else math.nan,
            "ratio_kk": ratio(g, num(kk, "gflops")) if kk else math.nan,
            "cublas_math": cb_ref["math"] if cb_ref else "",
            "intensity_flop_per_byte": num(rl, "intensity_flop_per_byte"),
            "attainable_gflops": num(rl, "attainable_gflops"),
            "bound": rl.get("bound", ""),
            "efficiency": num(rl, "efficiency"),
            "cublas_efficiency": ratio(num(cb_ref, "gflops"), num(rl, "attainable_gflops")) if cb_ref else math.nan,
            "ridgeline_peak_fraction": frac(num(rl, "gbs" if gemv else "gflops"), peak),
            "cublas_peak_fraction": frac(cb_metric, peak),
            "copy_gbs": copy_gbs,
            "ridgeline_bw_fraction": frac(num(rl, "gbs"), copy_gbs) if gemv else math.nan,
            "cublas_bw_fraction": frac(cb_metric, copy_gbs) if gemv else math.nan,
            "cublas_call": cb_ref.get("config", "") if cb_ref else "",
            "check_vs_kk": rl.get("check", ""),
            "check_ref": rl.get("check_ref", ""),
            "check_vs_cublas": status,
            "err_vs_cublas": err,
            "config": rl.get("config", ""),
        })

    meta = {
        "ridgeline": {k: rl_rows[0].get(k, "") for k in ("git_sha", "date_utc", "device", "backend", "kokkos", "command")} if rl_rows else {},
        "cublas": {k: cb_rows[0].get(k, "") for k in ("git_sha", "date_utc", "device", "command")} if cb_rows else {},
        "ratios": "GFLOP/s of Ridgeline over the baseline's, same shapes and inputs (>1: Ridgeline faster)",
        "ratio_cublas": "against cuBLAS pedantic math (no TF32) where run, else default math",
        "cublas_efficiency": "cuBLAS GFLOP/s over the roof of Ridgeline's row at the same intensity (the vector "
                             "units', or the matrix unit's for Ridgeline's tensor-core entries); above 1 on a "
                             "vector roof means cuBLAS ran on matrix units (pedantic DGEMM still does)",
        "peak_fraction": "GEMM: GFLOP/s over the dtype's datasheet peak (its fastest unit); GEMV: GB/s over "
                         "the datasheet DRAM bandwidth",
        "bw_fraction": "GEMV: GB/s over the copy bandwidth ridgeline-perf measured in the same run",
        "check_vs_kk": "ridgeline-perf's in-run check: against Kokkos Kernels, or for fp16/bf16 against its "
                       "fp64 reference kernel (check_ref names it); n/a where Ridgeline has no path",
        "unmatched_ridgeline": sorted("|".join(k) for k in by_key if k not in cublas),
        "unmatched_cublas": sorted("|".join(k) for k in cublas if k not in by_key),
    }
    if meta["ridgeline"].get("device") and meta["cublas"].get("device") and \
            meta["cublas"]["device"] not in meta["ridgeline"]["device"] and \
            meta["ridgeline"]["device"] not in meta["cublas"]["device"]:
        print(f"merge_results: warning: devices differ: {meta['ridgeline']['device']!r} vs "
              f"{meta['cublas']['device']!r}", file=sys.stderr)

    cols = list(merged[0].keys()) if merged else []
    with open(args.out + ".csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        for m in merged:
            w.writerow(["" if isinstance(m[c], float) and math.isnan(m[c]) else
                        (format(m[c], ".6g") if isinstance(m[c], float) else m[c]) for c in cols])
    with open(args.out + ".json", "w") as f:
        json.dump({"metadata": meta,
                   "rows": [{k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in m.items()}
                            for m in merged]}, f, indent=2)
        f.write("\n")

    md = []
    r0 = meta["ridgeline"]
    md.append(f"# Ridgeline vs cuBLAS vs Kokkos Kernels: {r0.get('device', '?')}\n")
    md.append(f"- git sha: `{r0.get('git_sha', '?')}`, date (UTC): {r0.get('date_utc', '?')}, "
              f"Kokkos: {r0.get('kokkos', '?')}")
    md.append(f"- ridgeline-perf: `{r0.get('command', '')}`")
    md.append(f"- cublas_baseline: `{meta['cublas'].get('command', '')}` ({meta['cublas'].get('date_utc', '?')})")
    md.append("- time = median per call (ms); GFLOP/s = 2MNK (x batch) or 2MN (8MNK, 8MN complex) / time; ratios = Ridgeline GFLOP/s / "
              "baseline GFLOP/s (>1: Ridgeline faster); eff = measured / roofline-attainable (FP vector peak; the matrix-unit peak for Ridgeline's tensor-core entries)")
    md.append("- % peak = GEMM GFLOP/s over the dtype's datasheet peak, GEMV GB/s over the datasheet DRAM bandwidth; "
              "BW÷copy = GEMV GB/s over the copy bandwidth measured in the same ridgeline-perf run "
              f"({fmt(merged[0]['copy_gbs'] if merged else math.nan, '.1f')} GB/s); both as Ridgeline / cuBLAS")
    md.append("- check in-run: Ridgeline against Kokkos Kernels (fp32, fp64) or the fp64 reference kernel "
              "(fp16, bf16; batches: on their first, middle and last matrices); n/a: no Ridgeline path in this "
              "build")
    md.append("")
    md.append("| op | trans | shape | dtype | Ridgeline ms | Ridgeline GFLOP/s | GB/s | cuBLAS GFLOP/s | "
              "÷cuBLAS | cuBLAS dflt GFLOP/s | ÷cuBLAS dflt | KK GFLOP/s | ÷KK | bound | eff | "
              "% peak | BW÷copy | check in-run | check cuBLAS |")
    md.append("|" + "---|" * 19)
    for m in merged:
        md.append("| " + " | ".join([
            m["op"], m["trans"], m["shape"], m["dtype"],
            fmt(m["ridgeline_ms"], ".4f"), fmt(m["ridgeline_gflops"], ".1f"), fmt(m["ridgeline_gbs"], ".1f"),
            fmt(m["cublas_pedantic_gflops"] if m["cublas_math"] == "pedantic" else m["cublas_default_gflops"], ".1f"),
            fmt(m["ratio_cublas"], ".3f"),
            fmt(m["cublas_default_gflops"], ".1f") if m["cublas_math"] == "pedantic" else "-",
            fmt(m["ratio_cublas_default"], ".3f") if m["cublas_math"] == "pedantic" else "-",
            fmt(m["kokkos_kernels_gflops"], ".1f"), fmt(m["ratio_kk"], ".3f"),
            m["bound"] or "-", fmt(m["efficiency"] * 100, ".1f") + ("%" if not math.isnan(m["efficiency"]) else ""),
            pair(m["ridgeline_peak_fraction"] * 100, m["cublas_peak_fraction"] * 100, ".1f"),
            pair(m["ridgeline_bw_fraction"], m["cublas_bw_fraction"], ".3f") if m["op"] == "gemv" else "-",
            m["check_vs_kk"] or "-", m["check_vs_cublas"],
        ]) + " |")
    calls = sorted({(m["dtype"], m["op"], m["cublas_call"], m["cublas_math"]) for m in merged if m["cublas_call"]})
    if calls:
        md.append("")
        md.append("cuBLAS calls (the ratio's baseline; math = cublasSetMathMode):")
        for dtype, op, call, mathmode in calls:
            md.append(f"- {dtype} {op}: `{call}`, math {mathmode}")
    teams = [m for m in merged if not math.isnan(m["team_gemm_gflops"])]
    if teams:
        md.append("")
        md.append("team_gemm in a user's TeamPolicy (a team per matrix, operands in global memory) against "
                  "gemm_batched on the same batch:")
        md.append("")
        md.append("| shape | dtype | team_gemm GFLOP/s | ÷ gemm_batched | check |")
        md.append("|---|---|---|---|---|")
        for m in teams:
            md.append(f"| {m['trans']} {m['shape']} | {m['dtype']} | {fmt(m['team_gemm_gflops'], '.1f')} | "
                      f"{fmt(m['team_gemm_over_batched'], '.3f')} | {m['check_team_gemm'] or '-'} |")
    if meta["unmatched_ridgeline"] or meta["unmatched_cublas"]:
        md.append("")
        md.append(f"Unmatched: ridgeline {meta['unmatched_ridgeline']}, cuBLAS {meta['unmatched_cublas']}")
    with open(args.out + ".md", "w") as f:
        f.write("\n".join(md) + "\n")

    print("\n".join(md))
    bad = [m for m in merged if m["check_vs_cublas"] == "MISMATCH" or m["check_vs_kk"] in ("MISMATCH", "ERROR")
           or m["check_team_gemm"] in ("MISMATCH", "ERROR")]
    return 2 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
