# Each run's fraction of cuBLAS (cuBLASLt for FP8) at the shapes of issue #53, one line per run:
#   python3 ratios.py ../../nvidia-h200.json 18,23,24,25,26 > ratios-h200.txt
import json
import sys

SHAPES = [(1024, 1024, 1024), (1000, 1000, 1000), (1536, 1536, 1536), (2048, 2048, 2048), (3072, 3072, 3072),
          (4088, 4104, 4096), (512, 4096, 4096), (1024, 1024, 8192), (4096, 4096, 4096), (8192, 8192, 8192)]
document = json.load(open(sys.argv[1]))
steps = sys.argv[2].split(",")
print("step           in    layout out  commit     | " + " ".join("x".join(map(str, s)) for s in SHAPES))
for run in document["runs"]:
    if not any(run["step"].startswith(s) for s in steps):
        continue
    cells = {(s["m"], s["n"], s["k"]): s.get("fraction_of_cublas") for s in run["shapes"]}
    row = " ".join(f"{cells[s]:.3f}" if cells.get(s) else "  -  " for s in SHAPES)
    print(f"{run['step'][:14]:14} {run['dtype']:5} {run['layout']:6} {run['out']:4} {run['commit'][:10]} | {row}")
