#!/usr/bin/env python3
"""Runs a command while nvidia-smi samples the GPU's SM clock, power, temperature and the reasons
the driver gives for holding the clock down, then prints what they were while the GPU was busy.

Why: an H100 under back-to-back tensor-core launches reaches its power limit almost at once, and
the driver then lowers the SM clock; the medians of a long run are the capped card's (see
docs/measuring.md). This shows it for any run:

    tools/clock_watch.py -- build/bin/14_mma_ldmatrix --size 8192 --reps 200 --no-check

nvidia-smi refreshes its readings about every 100 ms whatever the sampling interval, so a run of a
few launches may show no sample under load. Exit code: the command's own; 2 for bad usage (a
--device index nvidia-smi does not list included); 77 when there is no nvidia-smi or it lists no GPU.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

EXIT_USAGE, EXIT_NO_GPU = 2, 77

# The fields to read, each with the older name that drivers before 530 use (or a coarser
# substitute): the first of each pair that the installed nvidia-smi accepts is used.
FIELDS = [
    ("timestamp", ("timestamp",)),
    ("sm_clock_mhz", ("clocks.sm",)),
    ("max_sm_clock_mhz", ("clocks.max.sm",)),
    ("power_w", ("power.draw.instant", "power.draw")),
    ("power_limit_w", ("enforced.power.limit", "power.limit")),
    ("temperature_c", ("temperature.gpu",)),
    ("utilization_pct", ("utilization.gpu",)),
    ("reasons", ("clocks_event_reasons.active", "clocks_throttle_reasons.active")),
]

# The bits of clocks_event_reasons.active, as nvidia-smi --help-query-gpu documents them.
REASONS = [
    (0x1, "GPU idle"),
    (0x2, "applications clocks setting"),
    (0x4, "SW power cap"),
    (0x8, "HW slowdown"),
    (0x10, "sync boost"),
    (0x20, "SW thermal slowdown"),
    (0x40, "HW thermal slowdown"),
    (0x80, "HW power brake slowdown"),
    (0x100, "display clock setting"),
]


class NoGpu(Exception):
    pass


def nvidia_smi():
    found = shutil.which("nvidia-smi")
    if not found:
        raise NoGpu("clock_watch: no nvidia-smi on PATH: this tool needs an NVIDIA GPU and its driver")
    return found


def check_device(smi, device):
    """The GPU index must be one nvidia-smi lists: none listed is no GPU (77); an index past them is
    bad usage (2), as for the step programs' --device."""
    listing = subprocess.run([smi, "-L"], capture_output=True, text=True)
    count = sum(1 for line in listing.stdout.splitlines() if line.startswith("GPU "))
    if listing.returncode != 0 or count == 0:
        raise NoGpu("clock_watch: nvidia-smi lists no GPU: this tool needs an NVIDIA GPU and its driver")
    if not 0 <= device < count:
        return f"clock_watch: GPU {device} does not exist: nvidia-smi lists {count} (--device 0..{count - 1})"
    return ""


def choose_fields(smi, device):
    """The nvidia-smi field names this driver accepts, in the order of FIELDS."""
    chosen = []
    for key, names in FIELDS:
        for name in names:
            probe = subprocess.run([smi, "-i", str(device), f"--query-gpu={name}", "--format=csv,noheader,nounits"],
                                   capture_output=True, text=True)
            if probe.returncode == 0:
                chosen.append(name)
                break
        else:
            message = (probe.stdout.strip() or probe.stderr.strip()).splitlines()
            raise NoGpu(f"clock_watch: nvidia-smi cannot read {names[0]} of GPU {device}: "
                        f"{message[-1] if message else 'no output'}")
    return chosen


def number(text):
    """A reading as a number; None for [N/A], [Not Supported] and the like."""
    text = text.strip()
    try:
        return int(text, 16) if text.lower().startswith("0x") else float(text)
    except ValueError:
        return None


def parse(lines):
    """Samples (dicts keyed as FIELDS) from nvidia-smi's csv,noheader,nounits lines."""
    samples = []
    for line in lines:
        values = [part.strip() for part in line.strip().split(",")]
        if len(values) != len(FIELDS):
            continue  # a partial line at the end, or a message
        sample = {"timestamp": values[0]}
        for (key, _), value in zip(FIELDS[1:], values[1:]):
            sample[key] = number(value)
        samples.append(sample)
    return samples


def spread(values):
    values = [v for v in values if v is not None]
    if not values:
        return None
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def summarize(samples):
    """What the samples taken under load (utilization above 0) say."""
    busy = [s for s in samples if (s.get("utilization_pct") or 0) > 0]
    summary = {"samples": len(samples), "samples_under_load": len(busy)}
    if not busy:
        return summary
    summary["sm_clock_mhz"] = spread(s["sm_clock_mhz"] for s in busy)
    summary["max_sm_clock_mhz"] = max((s["max_sm_clock_mhz"] for s in busy if s["max_sm_clock_mhz"]), default=None)
    summary["power_w"] = spread(s["power_w"] for s in busy)
    summary["power_limit_w"] = max((s["power_limit_w"] for s in busy if s["power_limit_w"]), default=None)
    summary["temperature_c"] = spread(s["temperature_c"] for s in busy)
    reasons = {}
    for bit, name in REASONS:
        share = sum(1 for s in busy if s["reasons"] is not None and int(s["reasons"]) & bit) / len(busy)
        if share > 0:
            reasons[name] = share
    summary["reasons"] = reasons
    return summary


def report(summary):
    lines = [f"clock_watch: {summary['samples_under_load']} of {summary['samples']} samples under load"]
    if not summary["samples_under_load"]:
        lines.append("  (nvidia-smi refreshes about every 100 ms: run longer, e.g. more --reps)")
        return "\n".join(lines)

    def fmt(name, unit, values, extra="", show_min=True):
        if values is None:
            return f"  {name:12s} not reported"
        low = f", min {values['min']:.0f}" if show_min else ""
        return f"  {name:12s} median {values['median']:.0f} {unit}{low}, max {values['max']:.0f}{extra}"

    top = summary.get("max_sm_clock_mhz")
    lines.append(fmt("SM clock", "MHz", summary["sm_clock_mhz"], f" (the card's maximum {top:.0f})" if top else ""))
    limit = summary.get("power_limit_w")
    # The utilization a sample reports is averaged over a while, so samples just after the work
    # count as under load with the power already down: the least power says nothing.
    lines.append(fmt("power", "W", summary["power_w"], f" (limit {limit:.0f})" if limit else "", show_min=False))
    lines.append(fmt("temperature", "C", summary["temperature_c"]))
    if summary["reasons"]:
        shares = ", ".join(f"{name} in {share:.0%}" for name, share in summary["reasons"].items())
        lines.append(f"  clock held down by: {shares} of the samples under load")
    else:
        lines.append("  clock held down by: nothing")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
                                     usage="%(prog)s [options] -- COMMAND [ARGS...]")
    parser.add_argument("--interval-ms", type=int, default=5, help="sampling interval (default 5)")
    parser.add_argument("--device", type=int, default=0, help="nvidia-smi's index of the GPU to watch (default 0)")
    parser.add_argument("--json", metavar="FILE", help="also write the summary and every sample to FILE")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command to run, after --")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        print("clock_watch: no command: give one after --, e.g. clock_watch.py -- build/bin/14_mma_ldmatrix "
              "--size 8192 --reps 200", file=sys.stderr)
        return EXIT_USAGE
    if args.interval_ms < 1:
        print("clock_watch: --interval-ms must be at least 1", file=sys.stderr)
        return EXIT_USAGE
    if args.json:  # found out now, not after a long run
        try:
            open(args.json, "a", encoding="utf-8").close()
        except OSError as error:
            print(f"clock_watch: cannot write --json {args.json}: {error.strerror}", file=sys.stderr)
            return EXIT_USAGE
    try:
        smi = nvidia_smi()
        bad_device = check_device(smi, args.device)
        if bad_device:
            print(bad_device, file=sys.stderr)
            return EXIT_USAGE
        names = choose_fields(smi, args.device)
    except NoGpu as error:
        print(error, file=sys.stderr)
        return EXIT_NO_GPU

    with tempfile.TemporaryFile(mode="w+") as trace:
        sampler = subprocess.Popen([smi, "-i", str(args.device), "--query-gpu=" + ",".join(names),
                                    "--format=csv,noheader,nounits", "-lms", str(args.interval_ms)],
                                   stdout=trace, stderr=subprocess.DEVNULL)
        time.sleep(0.2)  # the first readings before the command starts
        try:
            code = subprocess.call(command)
        except OSError as error:
            print(f"clock_watch: cannot run {command[0]}: {error.strerror}", file=sys.stderr)
            code = EXIT_USAGE
        finally:
            time.sleep(0.2)
            sampler.terminate()
            sampler.wait()
        trace.seek(0)
        samples = parse(trace)

    summary = summarize(samples)
    print(report(summary))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump({"schema": "gemm-steps-clocks/1", "command": command, "exit_code": code,
                       "interval_ms": args.interval_ms, "fields": dict(zip([k for k, _ in FIELDS], names)),
                       "summary": summary, "samples": samples}, out, indent=1)
    return code


if __name__ == "__main__":
    sys.exit(main())
