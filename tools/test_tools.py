"""Unit tests of the results tools on a synthetic results document (run by CTest: tools.selftest)."""
import contextlib
import copy
import io
import json
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_all  # noqa: E402
import check_doc_commands  # noqa: E402
import check_doc_links  # noqa: E402
import check_model_ncu  # noqa: E402
import check_quotes  # noqa: E402
import clock_watch  # noqa: E402
import ladder  # noqa: E402
import lesson  # noqa: E402
import pictures  # noqa: E402
import plot_fp8_accuracy  # noqa: E402
import ptxas_notes  # noqa: E402
import render_docs  # noqa: E402
import results_lib  # noqa: E402


def shape(m, ms, cublas_ms, verdict="PASS"):
    return {"m": m, "n": m, "k": m, "alpha": 1, "beta": 0,
            "time": {"median_ms": ms, "min_ms": ms * 0.9, "max_ms": ms * 1.1, "reps": 5,
                     "gflops": results_lib.gflops(m, m, m, ms)},
            "cublas": {"median_ms": cublas_ms, "min_ms": cublas_ms, "max_ms": cublas_ms, "reps": 5,
                       "gflops": results_lib.gflops(m, m, m, cublas_ms)},
            "fraction_of_cublas": cublas_ms / ms,
            "check": {"reference": "cublas-fp32", "relative_frobenius": 1e-7, "max_abs": 1e-5,
                      "max_over_rms": 1e-6, "non_finite": 0},
            "verdict": verdict}


def document():
    device = {"name": "Test GPU", "compute_capability": "9.0", "sms": 132, "clock_mhz": 1980,
              "driver": "13.0", "runtime": "13.0", "cublas": "13.0.0"}
    runs = [{"step": "01_naive", "variant": "", "params": {}, "dtype": "f32", "layout": "nn", "out": "f32",
             "commit": "abc", "date": "2026-01-01T00:00:00Z", "shapes": [shape(1024, 10.0, 1.0)]},
            {"step": "02_gmem_coalescing", "variant": "", "params": {}, "dtype": "f32", "layout": "nn",
             "out": "f32", "commit": "abc", "date": "2026-01-01T00:00:00Z", "shapes": [shape(1024, 2.5, 1.0)]}]
    return {"schema": results_lib.SCHEMA, "device": device, "runs": runs}


class ValidateTest(unittest.TestCase):
    def test_consistent_document_passes(self):
        self.assertEqual(results_lib.validate(document()), [])

    def test_gflops_must_match_the_median(self):
        bad = document()
        bad["runs"][0]["shapes"][0]["time"]["gflops"] *= 2
        self.assertTrue(any("gflops" in p for p in results_lib.validate(bad)))

    def test_fail_verdict_rejected_in_shipped_results(self):
        bad = document()
        bad["runs"][0]["shapes"][0]["verdict"] = "FAIL"
        self.assertTrue(any("FAIL" in p for p in results_lib.validate(bad)))
        self.assertEqual(results_lib.validate(bad, require_pass=False), [])

    def test_median_outside_range(self):
        bad = document()
        bad["runs"][0]["shapes"][0]["time"]["min_ms"] = 100
        self.assertTrue(any("median outside" in p for p in results_lib.validate(bad)))

    def test_tf32_reference_is_checked_and_needs_its_call(self):
        doc = document()
        doc["runs"][0]["shapes"][0]["cublas_tf32"] = {"median_ms": 0.5, "min_ms": 0.4, "max_ms": 0.6, "reps": 5,
                                                     "gflops": results_lib.gflops(1024, 1024, 1024, 0.5)}
        self.assertTrue(any("cublas_tf32_call" in p for p in results_lib.validate(doc)))
        doc["runs"][0]["cublas_tf32_call"] = "cublasGemmEx (TF32)"
        self.assertEqual(results_lib.validate(doc), [])
        doc["runs"][0]["shapes"][0]["cublas_tf32"]["gflops"] *= 2
        self.assertTrue(any("cublas_tf32 gflops" in p for p in results_lib.validate(doc)))

    def test_fast_accumulation_reference_is_checked_and_needs_its_call(self):
        doc = document()
        doc["runs"][0]["shapes"][0]["cublas_fast_accum"] = {"median_ms": 0.5, "min_ms": 0.4, "max_ms": 0.6, "reps": 5,
                                                           "gflops": results_lib.gflops(1024, 1024, 1024, 0.5)}
        self.assertTrue(any("cublas_fast_accum_call" in p for p in results_lib.validate(doc)))
        doc["runs"][0]["cublas_fast_accum_call"] = "cublasLtMatmul (fast accumulation on)"
        self.assertEqual(results_lib.validate(doc), [])
        doc["runs"][0]["shapes"][0]["cublas_fast_accum"]["median_ms"] = 1.0
        self.assertTrue(any("cublas_fast_accum median outside" in p for p in results_lib.validate(doc)))

    def test_run_needs_commit(self):
        bad = document()
        del bad["runs"][1]["commit"]
        self.assertTrue(any("commit" in p for p in results_lib.validate(bad)))


class MergeTest(unittest.TestCase):
    def test_replaces_same_configuration_and_keeps_others(self):
        base = document()
        newer = copy.deepcopy(base["runs"][0])
        newer["shapes"][0] = shape(1024, 5.0, 1.0)
        merged = results_lib.merge(base, [newer], base["device"])
        self.assertEqual(len(merged["runs"]), 2)
        self.assertEqual(merged["runs"][0]["shapes"][0]["time"]["median_ms"], 5.0)

    def test_new_default_replaces_the_old_one(self):
        base = document()
        newer = copy.deepcopy(base["runs"][0])
        newer["params"] = {"BM": 999}
        merged = results_lib.merge(base, [newer], base["device"])
        self.assertEqual(len(merged["runs"]), 2)
        self.assertEqual(sum(run.get("params") == {"BM": 999} for run in merged["runs"]), 1)

    def test_refuses_another_gpu(self):
        with self.assertRaises(ValueError):
            results_lib.merge(document(), [], {"name": "Other GPU"})


class RenderTest(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.mkdtemp()
        import json
        with open(os.path.join(self.folder, "test-gpu.json"), "w") as handle:
            json.dump(document(), handle)

    def test_every_table_in_the_docs_has_as_many_alignments_as_columns(self):
        # A Markdown table whose delimiter row has another number of cells than its header is not
        # rendered as a table (the sweep tables had one cell too many).
        import re
        docs = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs")
        for name in sorted(os.listdir(docs)):
            if not name.endswith(".md"):
                continue
            with open(os.path.join(docs, name), encoding="utf-8") as handle:
                lines = handle.read().split("\n")
            for i in range(len(lines) - 1):
                if lines[i].startswith("|") and re.match(r"^\|(\s*:?-+:?\s*\|)+\s*$", lines[i + 1]):
                    cells = lambda line: line.strip().strip("|").count("|") + 1
                    self.assertEqual(cells(lines[i]), cells(lines[i + 1]), f"{name}:{i + 1}")

    def test_commit_stamps_keep_the_dirty_mark(self):
        self.assertEqual(render_docs.short_commit("0123456789abcdef0123"), "0123456789")
        self.assertEqual(render_docs.short_commit("82467cb-dirty"), "82467cb-dirty")
        self.assertEqual(render_docs.short_commit("0123456789abcdef-dirty"), "0123456789-dirty")

    def test_results_table_rows_come_from_the_file(self):
        text = "x\n<!-- results-table steps=01_naive,02_gmem_coalescing -->\nold\n<!-- end results-table -->\ny\n"
        out = render_docs.render(text, self.folder)
        self.assertNotIn("old", out)
        self.assertIn("| 01_naive | 1024×1024×1024 | 10.000 | 214.7 | 0.3% | 2,147.5 | 10.0% | 1.0e-07 | PASS |", out)
        self.assertIn("| 02_gmem_coalescing | 1024×1024×1024 | 2.500 | 859.0 |", out)
        self.assertIn("Test GPU", out)
        self.assertIn("fp32 peak = 132 SMs × 128 lanes × 2 × 1980 MHz = 66.9 TFLOPS", out)
        self.assertEqual(render_docs.render(out, self.folder), out)  # stable

    def test_a_subfolder_is_read_only_when_named(self):
        os.makedirs(os.path.join(self.folder, "sustained"))
        doc = document()
        doc["runs"] = doc["runs"][:1]
        doc["runs"][0]["shapes"][0]["time"]["reps"] = 500
        with open(os.path.join(self.folder, "sustained", "test-gpu.json"), "w", encoding="utf-8") as handle:
            json.dump(doc, handle)
        text = "<!-- results-table steps=01_naive dir=sustained -->\n<!-- end results-table -->\n"
        out = render_docs.render(text, self.folder)
        self.assertIn("median of 500 timed launches", out)
        self.assertIn("sustained/test-gpu.json", out)
        main = render_docs.render(text.replace(" dir=sustained", ""), self.folder)
        self.assertNotIn("median of 500", main)
        missing = render_docs.render(text.replace("sustained", "nowhere"), self.folder)
        self.assertIn(render_docs.NO_RESULTS.strip(), missing)

    def test_speedup_table(self):
        text = "<!-- speedup-table base=01_naive step=02_gmem_coalescing -->\n<!-- end speedup-table -->\n"
        self.assertIn("| 1024×1024×1024 | 214.7 | 859.0 | 4.0× |", render_docs.render(text, self.folder))

    def test_speedup_table_compares_f32_output_of_the_same_types(self):
        def run(step, ms, dtype, out):
            return {"step": step, "variant": "", "params": {}, "dtype": dtype, "layout": "nn", "out": out,
                    "commit": "abc", "date": "2026-01-01T00:00:00Z", "shapes": [shape(1024, ms, 1.0)]}
        doc = document()
        # Sorted as in a results file: bf16 -> bf16 before bf16 -> f32, f16 after both.
        doc["runs"] = [run("12_wmma", 1.0, "bf16", "bf16"), run("12_wmma", 10.0, "bf16", "f32"),
                       run("12_wmma", 1.0, "f16", "f32"), run("13_wmma_pipeline", 1.0, "bf16", "bf16"),
                       run("13_wmma_pipeline", 2.5, "bf16", "f32"), run("13_wmma_pipeline", 1.0, "f16", "f32")]
        table = render_docs.speedup_table({"base": "12_wmma", "step": "13_wmma_pipeline"}, [("x.json", doc)])
        self.assertIn("| 1024×1024×1024 | 214.7 | 859.0 | 4.0× |", table)
        self.assertIn("| M×N×K (NN, bf16 → f32) |", table)  # the runs compared, named
        doc["runs"] = [r for r in doc["runs"] if r["out"] == "f32"]  # no 16-bit output runs: the same table
        self.assertEqual(render_docs.speedup_table({"base": "12_wmma", "step": "13_wmma_pipeline"},
                                                   [("x.json", doc)]), table)

    def test_speedup_table_only_from_one_run_of_the_benchmarks(self):
        doc = document()
        doc["runs"][1]["date"] = "2026-01-05T00:00:00Z"  # step 02 measured in another session
        table = render_docs.speedup_table({"base": "01_naive", "step": "02_gmem_coalescing"}, [("x.json", doc)])
        self.assertNotIn("×", table)
        self.assertIn("Test GPU: its file's runs of 01_naive and 02_gmem_coalescing are not from one run", table)
        self.assertIn("2026-01-01, commit abc; 2026-01-05, commit abc", table)

    def test_demo_table_says_on_which_gpu_the_profiler_checked_the_model(self):
        run = {"step": "03_smem_banks_square", "variant": "row_col", "commit": "abc", "date": "2026-01-01T00:00:00Z",
               "blocks": 2048, "repeats": 64, "verdict": "PASS",
               "predicted": {"store_wavefronts_per_instruction": 1, "load_wavefronts_per_instruction": 32,
                             "shared_store_wavefronts": 10, "shared_load_wavefronts": 320},
               "time": {"median_ms": 0.5, "reps": 5}}
        doc = dict(document(), runs=[run])
        folder = tempfile.mkdtemp()
        path = os.path.join(folder, "test-gpu.json")
        table = render_docs.demo_table({"step": "03_smem_banks_square"}, [(path, doc)])
        self.assertIn("| row_col | 1 | 32 | 10 | 320 | 500.0 | PASS |", table)
        self.assertIn("the profiler's check below was made on another GPU", table)
        # A comparison file of this GPU that holds no case of this step (other steps profiled there).
        with open(os.path.join(folder, "model-vs-ncu-test-gpu.json"), "w", encoding="utf-8") as handle:
            json.dump({"cases": [{"step": "13_wmma_pipeline"}]}, handle)
        self.assertIn("the profiler's check below was made on another GPU", render_docs.demo_table(
            {"step": "03_smem_banks_square"}, [(path, doc)]))
        with open(os.path.join(folder, "model-vs-ncu-test-gpu.json"), "w", encoding="utf-8") as handle:
            json.dump({"cases": [{"step": "03_smem_banks_square"}]}, handle)
        self.assertIn("(checked against the profiler below)", render_docs.demo_table({"step": "03_smem_banks_square"},
                                                                                   [(path, doc)]))
        shutil.rmtree(folder)

    def test_speedup_table_of_an_output_type_to_two_digits_skips_variants(self):
        def run(step, ms, out, variant=""):
            return {"step": step, "variant": variant, "params": {}, "dtype": "e4m3", "layout": "nt", "out": out,
                    "commit": "abc", "date": "2026-01-01T00:00:00Z", "shapes": [shape(1024, ms, 1.0)]}
        doc = document()
        doc["runs"] = [run("19_fp8", 1.0, "bf16", "no-promotion"), run("19_fp8", 1.1, "bf16"), run("19_fp8", 1.0, "f32"),
                       run("20_overlapped_epilogue", 1.0, "bf16"), run("20_overlapped_epilogue", 1.0, "f32")]
        attributes = {"base": "19_fp8", "step": "20_overlapped_epilogue", "out": "bf16", "digits": "2"}
        table = render_docs.speedup_table(attributes, [("x.json", doc)])
        self.assertIn("| 1.10× |", table)  # against the promoted bf16 run, not the no-promotion variant
        del attributes["out"]
        self.assertIn("| 1.00× |", render_docs.speedup_table(attributes, [("x.json", doc)]))  # f32 output

    def test_tf32_table_lists_the_shapes_that_timed_it(self):
        doc = document()
        doc["runs"][1]["cublas_tf32_call"] = "cublasGemmEx (TF32)"
        doc["runs"][1]["shapes"][0]["cublas_tf32"] = {"median_ms": 0.25, "min_ms": 0.25, "max_ms": 0.25,
                                                     "reps": 5, "gflops": results_lib.gflops(1024, 1024, 1024, 0.25)}
        table = render_docs.tf32_table({"step": "02_gmem_coalescing"}, [("docs/results/x.json", doc)])
        self.assertIn("| 1024×1024×1024 | 859.0 | 2,147.5 | 8,589.9 | 4.0× |", table)
        self.assertIn("cublasGemmEx (TF32)", table)
        self.assertEqual(render_docs.tf32_table({"step": "01_naive"}, [("x.json", doc)]), render_docs.NO_RESULTS)

    def test_results_table_folds_the_shapes_other_than_the_standard_squares(self):
        doc = document()
        odd = shape(1024, 12.0, 1.0)
        odd["m"], odd["n"], odd["k"] = 1000, 999, 1001
        doc["runs"][0]["shapes"].append(odd)
        table = render_docs.results_table({"steps": "01_naive"}, [("x.json", doc)])
        shown, _, folded = table.partition("<details>")
        self.assertIn("| 01_naive | 1024×1024×1024 |", shown)
        self.assertNotIn("1000×999×1001", shown)
        self.assertIn("<summary>1 more row: 1000×999×1001</summary>", folded)
        self.assertIn("| 01_naive | 1000×999×1001 |", folded)
        self.assertIn("</details>", folded)
        named = render_docs.results_table({"steps": "01_naive", "show": "1000x999x1001"}, [("x.json", doc)])
        self.assertNotIn("<details>", named)
        self.assertIn("| 01_naive | 1000×999×1001 |", named)

    def test_results_table_shows_the_types_named_and_folds_the_others(self):
        doc = document()
        doc["runs"][1].update(step="01_naive", dtype="bf16", out="bf16")
        table = render_docs.results_table({"steps": "01_naive", "types": "nn:f32:f32"}, [("x.json", doc)])
        shown, _, folded = table.partition("<details>")
        self.assertIn("| 01_naive | 1024×1024×1024 | 10.000 |", shown)
        self.assertNotIn("bf16", shown.split("\n\n")[0])
        self.assertIn("| 01_naive NN, bf16 → bf16 | 1024×1024×1024 | 2.500 |", folded)

    def test_check_fails_when_a_folded_row_disagrees_with_the_results(self):
        doc = document()
        odd = shape(1024, 12.0, 1.0)
        odd["m"], odd["n"], odd["k"] = 1000, 999, 1001
        doc["runs"][0]["shapes"].append(odd)
        with open(os.path.join(self.folder, "test-gpu.json"), "w", encoding="utf-8") as handle:
            json.dump(doc, handle)
        text = render_docs.render("<!-- results-table steps=01_naive -->\n<!-- end results-table -->\n", self.folder)
        self.assertEqual(render_docs.render(text, self.folder), text)
        edited = text.replace("| 01_naive | 1000×999×1001 | 12.000 |", "| 01_naive | 1000×999×1001 | 11.000 |")
        self.assertNotEqual(edited, text)
        self.assertNotEqual(render_docs.render(edited, self.folder), edited)  # what --check reports

    def test_tensor_core_rows_are_a_fraction_of_the_tensor_core_peak(self):
        doc = document()
        for run in doc["runs"]:
            run.update(dtype="bf16", out="f32")
        table = render_docs.results_table({"steps": "01_naive"}, [("x.json", doc)])
        # 214.7 GFLOPS of 132 SMs x 4096 FLOP x 1980 MHz = 1,070,530 GFLOPS: 0.0%; the header says which peak.
        self.assertIn("| step | M×N×K | median ms | GFLOPS | % of tensor-core peak |", table)
        self.assertIn("| 10.000 | 214.7 | 0.0% |", table)
        self.assertIn("dense 16-bit tensor-core peak = 132 SMs × 4096 FLOP/clock × 1980 MHz = 1,070.5 TFLOPS", table)
        self.assertNotIn("fp32 peak", table)
        doc["device"]["compute_capability"] = "7.5"  # a peak the tables do not know is not guessed
        self.assertIn("| 10.000 | 214.7 | – |", render_docs.results_table({"steps": "01_naive"}, [("x.json", doc)]))

    def test_model_table_is_summed_up_in_a_line_above_the_folded_table(self):
        def case(step, predicted, measured, agree=True, held=True):
            return {"step": step, "variant": "", "shape": "128x128x128", "beta": 0.0, "held": held,
                    "counters": {"global_load_sectors": {"predicted": predicted, "measured": measured, "agree": agree},
                                 "shared_load_requests": {"predicted": 0, "measured": 0, "agree": True}}}
        model = {"gpu": "Test GPU", "ncu": "ncu 1", "commit": "abc",
                 "cases": [case("01_naive", 100, 100), case("02_gmem_coalescing", 100, 101),
                           case("13_wmma_pipeline", 100, 120, agree=False, held=False)]}
        with open(os.path.join(self.folder, "model-vs-ncu-test-gpu.json"), "w", encoding="utf-8") as handle:
            json.dump(model, handle)
        exact = render_docs.model_table({"steps": "01_naive"}, self.folder)
        self.assertTrue(exact.startswith("**1 case, 1 counters: every counter is the model's exactly**"))
        close = render_docs.model_table({"steps": "01_naive,02_gmem_coalescing"}, self.folder)
        self.assertIn("every counter within 1.0% of the model's", close)
        differ = render_docs.model_table({"steps": "13_wmma_pipeline"}, self.folder)
        self.assertIn("all agree with the model but 1**: global_load_sectors in 1 case (+20.0%, not held to the rule)",
                      differ)
        self.assertIn("<details><summary>The counters, case by case</summary>", differ)
        self.assertIn("| 13_wmma_pipeline | 128x128x128, β=0 | global_load_sectors | 100 | 120 | no (not held) |", differ)

    def test_a_ceiling_is_not_measured_until_its_file_exists(self):
        text = "<!-- ceiling instruction=wgmma -->\n<!-- end ceiling -->\n"
        self.assertIn("not measured yet", render_docs.render(text, self.folder))
        with self.assertRaises(RuntimeError):
            render_docs.ceiling_line({"instruction": "hmma"}, self.folder)
        entry = {"instruction": "wgmma", "label": "wgmma m64n256k16 bf16", "config": "2 warpgroups/SM", "launches": 20,
                 "median_ms": 1.0, "tflops": 900.0, "first_tflops": 900.0, "last_tflops": 900.0, "clock_mhz": 1800.0}
        ceilings = {"schema": "gemm-steps-ceilings/1", "commit": "abc", "date": "2026-01-01T00:00:00Z",
                    "device": {"name": "Test GPU", "compute_capability": "9.0", "sms": 132, "clock_mhz": 1980,
                               "driver": "13.0", "runtime": "13.0"},
                    "ceilings": [dict(entry, phase="short", flop_per_sm_clock=3900.0),
                                 dict(entry, phase="short", config="1 warpgroup/SM", flop_per_sm_clock=3000.0),
                                 dict(entry, phase="sustained", launches=400, flop_per_sm_clock=3800.0,
                                      clock_mhz=1600.0)]}
        with open(os.path.join(self.folder, "ceilings-test-gpu.json"), "w", encoding="utf-8") as handle:
            json.dump(ceilings, handle)
        line = render_docs.render(text, self.folder)
        # The best configuration, per clock and as a share of the 4096 FLOP per SM and clock.
        self.assertIn("3,900 FLOP per SM per clock, 95.2% of the dense 16-bit tensor-core peak's 4096", line)
        self.assertIn("3,800 at a median 1,600 MHz", line)
        self.assertNotIn("the peak, within", line)
        ceilings["ceilings"][2]["flop_per_sm_clock"] = 4100.0  # a sustained rate read at the peak
        with open(os.path.join(self.folder, "ceilings-test-gpu.json"), "w", encoding="utf-8") as handle:
            json.dump(ceilings, handle)
        self.assertIn("4,100 at a median 1,600 MHz (the peak, within the clock reading)",
                      render_docs.render(text, self.folder))
        ceilings["ceilings"][2]["flop_per_sm_clock"] = 3800.0
        with open(os.path.join(self.folder, "ceilings-test-gpu.json"), "w", encoding="utf-8") as handle:
            json.dump(ceilings, handle)
        self.assertIn("ceilings-test-gpu.json", line)
        self.assertIn("| wgmma m64n256k16 | 2 warpgroups/SM | 900.0 | 1,800 | 3,900 | 95.2% of 4096 |",
                      render_docs.ceilings_table({}, self.folder))
        self.assertNotIn("not measured", render_docs.ceiling_line({"instruction": "wgmma"}, self.folder))
        self.assertIn("not measured yet", render_docs.ceiling_line({"instruction": "ffma"}, self.folder))
        # The ceilings file is not a results file.
        self.assertNotIn("ceilings-test-gpu.json", " ".join(results_lib.results_files(self.folder)))

    def test_ladder_table_gives_a_gain_only_within_one_run(self):
        doc = document()
        doc["runs"].append(dict(copy.deepcopy(doc["runs"][1]), step="05_smem_tiling", commit="def",
                                description="tiles in shared memory", shapes=[shape(1024, 2.0, 1.0)]))
        table = render_docs.ladder_table({"kind": "fp32", "size": "1024"}, [("x.json", doc)], self.folder)
        self.assertIn("| step | the idea | GFLOPS at 1024³ | × the step before | % of cuBLAS | % of peak |", table)
        self.assertIn("| 02 |  | 859 | 4.00× | 40.0% |", table)
        self.assertIn("| 05 | tiles in shared memory | 1,074 | –, not in one run | 50.0% |", table)
        self.assertIn("fp32 peak = 132 SMs × 128 lanes × 2 × 1980 MHz", table)
        only = render_docs.ladder_table({"kind": "fp32", "size": "1024", "steps": "2-5"}, [("x.json", doc)], self.folder)
        self.assertNotIn("| 01 |", only)
        self.assertIn("| 02 |  | 859 | 4.00× |", only)  # the gain over step 01, which the table leaves out
        # A subfolder holding both from one run gives the gain, marked and named.
        os.makedirs(os.path.join(self.folder, "pair"))
        pair = document()
        pair["runs"] = [dict(copy.deepcopy(doc["runs"][1]), commit="p"), dict(copy.deepcopy(doc["runs"][2]), commit="p")]
        pair["runs"][0]["shapes"] = [shape(1024, 4.0, 1.0)]
        with open(os.path.join(self.folder, "pair", "test-gpu.json"), "w", encoding="utf-8") as handle:
            json.dump(pair, handle)
        paired = render_docs.ladder_table({"kind": "fp32", "size": "1024", "pairs": "pair"}, [("x.json", doc)],
                                          self.folder)
        self.assertIn("| 1,074 | 2.00×† |", paired)
        self.assertIn("pair/test-gpu.json", paired)
        # A pair measured on another GPU gives no gain in this GPU's table.
        pair["device"] = dict(pair["device"], name="Other GPU")
        with open(os.path.join(self.folder, "pair", "test-gpu.json"), "w", encoding="utf-8") as handle:
            json.dump(pair, handle)
        other = render_docs.ladder_table({"kind": "fp32", "size": "1024", "pairs": "pair"}, [("x.json", doc)],
                                         self.folder)
        self.assertIn("| 1,074 | –, not in one run |", other)

    def test_sizes_table_spans_every_run_of_each_ladders_last_step(self):
        doc = document()
        f16 = dict(copy.deepcopy(doc["runs"][1]), step="18_tma_store_epilogue", dtype="f16", layout="nn", out="f32",
                   shapes=[shape(1024, 1.0, 0.9), shape(2048, 1.0, 1.0)])
        bf16 = dict(copy.deepcopy(f16), dtype="bf16", layout="tn", out="bf16", shapes=[shape(1024, 1.0, 0.5)])
        older = dict(copy.deepcopy(f16), step="17_persistent_clusters", shapes=[shape(1024, 1.0, 0.1)])
        doc["runs"] += [f16, bf16, older]
        table = render_docs.sizes_table({"shapes": "2048,1024,512"}, [("x.json", doc)], self.folder)
        lines = table.splitlines()
        self.assertIn("| M×N×K | fp32, step 02: % of cuBLAS | 16-bit, step 18: % of cuBLAS |", lines[0])
        # In the order named; the worst and best over the last step's runs, step 17's not among them.
        self.assertEqual(lines[2], "| 2048×2048×2048 | not measured | 100.0% (1 of 1 ≥ 95%) |")
        self.assertEqual(lines[3], "| 1024×1024×1024 | 40.0% (0 of 1 ≥ 95%) | 50.0–90.0% (0 of 2 ≥ 95%) |")
        self.assertEqual(lines[4], "| 512×512×512 | not measured | not measured |")

    def test_ladder_table_selects_steps_by_what_they_declare(self):
        # min_arch= / below_arch= take the steps whose declared minimum compute capability (the
        # build's steps.json) is at least / below it; a step the manifest lacks is not shown.
        doc = document()
        manifest = os.path.join(self.folder, "steps.json")
        with open(manifest, "w", encoding="utf-8") as handle:
            json.dump({"steps": [{"name": "01_naive", "min_arch": 75}, {"name": "02_gmem_coalescing", "min_arch": 90}]},
                      handle)
        saved = render_docs.MANIFEST_PATH, render_docs._manifest
        render_docs.MANIFEST_PATH, render_docs._manifest = manifest, None
        try:
            newer = render_docs.ladder_table({"kind": "fp32", "size": "1024", "min_arch": "90"}, [("x.json", doc)],
                                             self.folder)
            older = render_docs.ladder_table({"kind": "fp32", "size": "1024", "below_arch": "90"}, [("x.json", doc)],
                                             self.folder)
            self.assertIn("| 02 |", newer)
            self.assertNotIn("| 01 |", newer)
            self.assertIn("| 01 |", older)
            self.assertNotIn("| 02 |", older)
            self.assertFalse(render_docs.ladder_selects({"min_arch": "75"}, "03_smem_banks_square"))  # not declared
            self.assertTrue(render_docs.ladder_selects({}, "03_smem_banks_square"))  # every step of the kind
            render_docs.MANIFEST_PATH, render_docs._manifest = os.path.join(self.folder, "none.json"), None
            with self.assertRaises(render_docs.ManifestMissing):
                render_docs.ladder_selects({"below_arch": "90"}, "01_naive")
        finally:
            render_docs.MANIFEST_PATH, render_docs._manifest = saved

    def test_code_quotes_a_definition_with_its_comment(self):
        lines = ["// The count.", "constexpr int kCount = 4;  // four", "", "// Twice a value,",
                 "// for the test.", "GEMM_HD int twice(int x) {", "  if (x) {", "    return 2 * x;", "  }",
                 "  return 0;", "}", "inline int twice_again(int x) { return twice(twice(x)); }"]
        self.assertEqual(render_docs.quote_definition(lines, "twice"), lines[3:11])
        self.assertEqual(render_docs.quote_definition(lines, "kCount"), lines[0:2])
        self.assertEqual(render_docs.quote_definition(lines, "twice_again"), lines[11:12])
        with self.assertRaises(RuntimeError):
            render_docs.quote_definition(lines, "thrice")
        quoted = render_docs.code_quote({"file": "steps/22_tile_width/mapping.hpp", "names": "counted_time"})
        self.assertIn("inline long long counted_time(", quoted)
        self.assertTrue(quoted.rstrip().endswith("```"))

    def test_tile_table_names_the_tile_each_shape_ran(self):
        doc = document()
        doc["runs"][1]["params"] = {"BM": 128, "BN": 256}
        doc["runs"][1]["shapes"].append(dict(shape(2048, 20.0, 10.0), params={"BM": 256, "BN": 128}))
        table = render_docs.tile_table({"step": "02_gmem_coalescing"}, [("x.json", doc)])
        self.assertIn("| 1024×1024×1024 | 128 × 256 | no: the default | 859 | 40.0% |", table)
        self.assertIn("| 2048×2048×2048 | 256 × 128 | BM=256 BN=128 | 859 | 50.0% |", table)
        self.assertIn("its default BM=128 BN=256", table)

    def test_missing_results_say_so(self):
        text = "<!-- results-table steps=99_none -->\n<!-- end results-table -->\n"
        self.assertIn("No measured results yet", render_docs.render(text, self.folder))

    def test_results_table_names_fp8_types_and_the_variant(self):
        doc = fp8_document()
        table = render_docs.results_table({"steps": "19_fp8"}, [("x.json", doc)])
        self.assertIn("| 19_fp8 NT, e4m3 × e4m3 → bf16 | 1024×1024×1024 (BN=128) | 1.000 |", table)
        self.assertIn("| 19_fp8 NT, e5m2 × e4m3 → bf16 | 1024×1024×1024 (BN=128) |", table)
        self.assertIn("| 19_fp8 (no-promotion) NT, e4m3 × e4m3 → bf16 | 1024×1024×1024 | 0.800 |", table)
        # The % column is of the FP8 tensor cores' dense peak at the run's clock, not of fp32's.
        self.assertIn("| step | M×N×K | median ms | GFLOPS | % of FP8 peak |", table)
        self.assertIn("| 1.000 | 2,147.5 | 0.1% |", table)
        self.assertIn("dense FP8 tensor-core peak = 132 SMs × 8192 FLOP/clock × 1980 MHz", table)
        self.assertNotIn("fp32 peak", table)

    def test_fp8_table_puts_the_variant_beside_its_run(self):
        doc = fp8_document()
        table = render_docs.fp8_table({"step": "19_fp8"}, [("docs/results/x.json", doc)])
        self.assertIn("| types | M×N×K | TFLOPS | % of FP8 peak | cuBLASLt TFLOPS | % of cuBLASLt | "
                      "cuBLASLt fast accum. TFLOPS | no-promotion TFLOPS | no-promotion % of cuBLASLt |", table)
        # 2 * 1024^3 flops: 1 ms is 2.1 TFLOPS, 0.1% of the FP8 peak of 132 SMs x 8192 x 1980 MHz;
        # cuBLASLt 0.9 ms, fast accumulation 0.5 ms. The variant ran its own tile (BN=192, the run's)
        # where this row chose BN=128: its cell says so.
        self.assertIn("| NT, e4m3 × e4m3 → bf16 | 1024×1024×1024 (BN=128) | 2.1 | 0.1% | 2.4 | 90.0% | 4.3 | "
                      "2.7 (BN=192) | 125.0% |", table)
        self.assertIn("| NT, e5m2 × e4m3 → bf16 | 1024×1024×1024 (BN=128) | 2.1 | 0.1% | 2.4 | 90.0% | 4.3 | – | – |",
                      table)
        self.assertIn("dense FP8 tensor-core peak = 132 SMs × 8192 FLOP/clock × 1980 MHz = 2,141.1 TFLOPS", table)
        self.assertIn("fast accumulation on", table)
        self.assertIn("no-promotion: PROMOTE=0", table)
        self.assertEqual(table.count("| NT, e4m3 × e4m3 → bf16 |"), 1)  # the variant has no rows of its own
        # A variant with no run of its types beside it gets rows of its own, named.
        doc["runs"] = doc["runs"][1:]
        alone = render_docs.fp8_table({"step": "19_fp8"}, [("x.json", doc)])
        self.assertIn("| no-promotion: NT, e4m3 × e4m3 → bf16 | 1024×1024×1024 | 2.7 |", alone)
        self.assertNotIn("no-promotion TFLOPS", alone)
        self.assertEqual(render_docs.fp8_table({"step": "18_x"}, [("x.json", doc)]), render_docs.NO_RESULTS)

    def test_fp8_tolerance_is_the_harness_constant(self):
        frobenius, max_over_rms, frobenius_text, _ = render_docs.fp8_tolerance()
        self.assertGreater(frobenius, 0)
        self.assertGreater(max_over_rms, frobenius)
        self.assertEqual(float(frobenius_text), frobenius)

    def test_fp8_accuracy_table_rows_are_k(self):
        with open(os.path.join(self.folder, "fp8-accuracy-test-gpu.json"), "w", encoding="utf-8") as handle:
            json.dump(accuracy_document(), handle)
        table = render_docs.fp8_accuracy_table({}, self.folder, tolerance=(1e-3, 1e-2, "1e-3", "1e-2"))
        self.assertIn("| K | every k-tile (PROMOTE=1): rel. error | max / rms | check | never (PROMOTE=0): rel. error |",
                      table)
        self.assertIn("| 256 | 1.0e-04 | 1.0e-03 | PASS | 2.0e-04 | 2.0e-03 | PASS |", table)
        self.assertIn("| 16,384 | 1.1e-04 | 1.1e-03 | PASS | 2.0e-03 | 2.0e-02 | FAIL |", table)
        self.assertIn("M = N = 256", table)
        self.assertIn("rel. error ≤ 1e-3 and max / rms ≤ 1e-2", table)
        self.assertIn("fp8-accuracy-test-gpu.json", table)
        # The step's results files are read elsewhere: the accuracy file is not one of them.
        self.assertNotIn("fp8-accuracy-test-gpu.json", " ".join(results_lib.results_files(self.folder)))

    def test_fp8_accuracy_table_puts_cublaslt_beside_the_step(self):
        with open(os.path.join(self.folder, "fp8-accuracy-test-gpu.json"), "w", encoding="utf-8") as handle:
            json.dump(accuracy_document_with_yardsticks(), handle)
        table = render_docs.fp8_accuracy_table({}, self.folder, tolerance=(1e-3, 1e-2, "1e-3", "1e-2"))
        self.assertIn("| never (PROMOTE=0): rel. error | max / rms | check | cuBLASLt, fast accumulation off: rel. "
                      "error | cuBLASLt, fast accumulation on: rel. error |", table)
        self.assertIn("| 16,384 | 1.1e-04 | 1.1e-03 | PASS | 2.0e-03 | 2.0e-02 | FAIL | 1.1e-04 | 1.8e-03 |", table)
        self.assertIn("cuBLASLt on the same inputs", table)

    def test_fp8_accuracy_verdicts_must_be_the_tolerances(self):
        with open(os.path.join(self.folder, "fp8-accuracy-test-gpu.json"), "w", encoding="utf-8") as handle:
            json.dump(accuracy_document(), handle)
        with self.assertRaises(RuntimeError):  # measured under a looser tolerance than the source says now
            render_docs.fp8_accuracy_table({}, self.folder, tolerance=(1e-4, 1e-2, "1e-4", "1e-2"))


def fp8_document():
    """The FP8 step's runs: e4m3 and e5m2 x e4m3 to bf16, and e4m3 without promotion."""
    def run(dtype, variant, ms, promote, own_tile):
        one = shape(1024, ms, 0.9 * ms if not variant else ms)
        one["cublas_fast_accum"] = {"median_ms": 0.5, "min_ms": 0.5, "max_ms": 0.5, "reps": 5,
                                    "gflops": results_lib.gflops(1024, 1024, 1024, 0.5)}
        if variant:
            one["cublas"] = {"median_ms": 1.0, "min_ms": 1.0, "max_ms": 1.0, "reps": 5,
                             "gflops": results_lib.gflops(1024, 1024, 1024, 1.0)}
            one["fraction_of_cublas"] = 1.0 / ms
        params = {"BN": 192, "PROMOTE": promote}
        if own_tile:
            one["params"] = {"BN": 128, "PROMOTE": promote}
        return {"step": "19_fp8", "variant": variant, "params": params, "dtype": dtype, "layout": "nt", "out": "bf16",
                "cublas_call": f"cublasLtMatmul ({dtype} x e4m3, f32 compute, bf16 out, TN, fast accumulation off)",
                "cublas_fast_accum_call": f"cublasLtMatmul ({dtype} x e4m3, f32 compute, bf16 out, TN, "
                                          "fast accumulation on)",
                "commit": "abc", "date": "2026-01-01T00:00:00Z", "shapes": [one]}
    doc = document()
    doc["runs"] = [run("e4m3", "", 1.0, 1, True), run("e5m2", "", 1.0, 1, True), run("e4m3", "no-promotion", 0.8, 0, False)]
    return doc


def accuracy_document():
    def series(promote, errors):
        return {"promote": promote, "params": {"BK": 128, "PROMOTE": promote},
                "points": [{"k": k, "relative_frobenius": e, "max_over_rms": 10 * e, "reference": "cpu-fp64",
                            "verdict": "PASS" if e <= 1e-3 else "FAIL"} for k, e in errors]}
    device = document()["device"]
    return {"schema": "gemm-steps/fp8-accuracy/1", "device": device, "date": "2026-01-01T00:00:00Z", "commit": "abc",
            "m": 256, "n": 256, "dtype": "e4m3", "out": "f32",
            "series": [series(1, [(256, 1.0e-4), (16384, 1.1e-4)]), series(0, [(256, 2e-4), (16384, 2e-3)])]}


def accuracy_document_with_yardsticks():
    """The same, with cuBLASLt's own errors beside the step's (fast accumulation off and on)."""
    document = accuracy_document()
    document["yardsticks"] = [
        {"name": "cublas", "label": "cuBLASLt, fast accumulation off", "call": "lt off",
         "points": [{"k": 256, "relative_frobenius": 1.05e-4}, {"k": 16384, "relative_frobenius": 1.07e-4}]},
        {"name": "cublas_fast_accum", "label": "cuBLASLt, fast accumulation on", "call": "lt on",
         "points": [{"k": 256, "relative_frobenius": 1.9e-4}, {"k": 16384, "relative_frobenius": 1.8e-3}]}]
    return document


class PlotTest(unittest.TestCase):
    def test_the_accuracy_plot_has_a_line_per_promote_and_the_tolerance(self):
        picture = plot_fp8_accuracy.svg(accuracy_document(), "fp8-accuracy-test-gpu.json", (1e-3, 1e-2, "1e-3", "1e-2"))
        self.assertEqual(picture.count("<polyline"), 2)
        self.assertEqual(picture.count('stroke-dasharray="9 6"'), 2)  # the tolerance and its legend
        self.assertIn("every k-tile (PROMOTE=1)", picture)
        self.assertIn("never (PROMOTE=0)", picture)
        self.assertIn("an open marker", picture)  # a FAIL point is drawn open
        self.assertIn("fp8-accuracy-test-gpu.json", picture)
        self.assertEqual(plot_fp8_accuracy.svg(accuracy_document(), "fp8-accuracy-test-gpu.json",
                                               (1e-3, 1e-2, "1e-3", "1e-2")), picture)  # the same bytes

    def test_the_accuracy_plot_draws_cublaslt_dotted(self):
        picture = plot_fp8_accuracy.svg(accuracy_document_with_yardsticks(), "fp8-accuracy-test-gpu.json",
                                        (1e-3, 1e-2, "1e-3", "1e-2"))
        self.assertEqual(picture.count("<polyline"), 4)
        self.assertEqual(picture.count('stroke-dasharray="3 4"'), 4)  # two lines and their legend entries
        self.assertIn("cuBLASLt, fast accumulation off", picture)
        self.assertIn("cuBLASLt, fast accumulation on", picture)

    def test_the_shipped_accuracy_file_draws_one_picture(self):
        drawn = plot_fp8_accuracy.pictures()
        self.assertEqual(list(drawn), [plot_fp8_accuracy.PICTURE])




class LadderTest(unittest.TestCase):
    def tensor_run(self, step, ms, dtype="f16", layout="nn", out="f32", commit="abc"):
        return {"step": step, "variant": "", "params": {}, "dtype": dtype, "layout": layout, "out": out,
                "commit": commit, "date": "2026-01-01T00:00:00Z", "shapes": [shape(1024, ms, 1.0)]}

    def kinds(self, doc):
        return {kind: runs for kind, _, runs in results_lib.ladder_runs(doc)}

    def test_rows_come_from_the_file_in_step_order(self):
        doc = document()
        doc["runs"].reverse()
        runs = self.kinds(doc)["fp32"]
        rows = results_lib.ladder_rows(doc, runs, 1024, "fp32")
        self.assertEqual([r["step"] for r in rows], ["01_naive", "02_gmem_coalescing"])
        self.assertAlmostEqual(rows[0]["gflops"], results_lib.gflops(1024, 1024, 1024, 10.0))
        self.assertIsNone(rows[0]["gain"])
        self.assertAlmostEqual(rows[1]["gain"], 4.0)  # 10 ms -> 2.5 ms, in one run (same commit, same time)
        self.assertAlmostEqual(rows[1]["fraction"], 0.4)
        # Of the fp32 peak: 132 SMs x 256 FLOP x 1980 MHz.
        self.assertAlmostEqual(rows[1]["peak_fraction"], rows[1]["gflops"] / (132 * 256 * 1980 / 1000.0))

    def test_a_gain_needs_both_runs_from_one_run(self):
        doc = document()
        doc["runs"][1]["commit"] = "def"  # step 02 measured at another commit
        rows = results_lib.ladder_rows(doc, self.kinds(doc)["fp32"], 1024, "fp32")
        self.assertIsNone(rows[1]["gain"])
        self.assertEqual(rows[1]["gain_note"], "not in one run")
        doc["runs"][1]["commit"], doc["runs"][1]["date"] = "abc", "2026-01-02T00:00:00Z"  # same commit, a day later
        self.assertIsNone(results_lib.ladder_rows(doc, self.kinds(doc)["fp32"], 1024, "fp32")[1]["gain"])
        text = ladder.render(doc, "x.json", 1024)
        self.assertIn("not measured in one run with the step before (02_gmem_coalescing)", text)
        self.assertNotIn("4.00×", text)
        # A file holding both from one run gives the gain, named.
        pair = document()
        pair["runs"][1]["shapes"] = [shape(1024, 5.0, 1.0)]
        rows = results_lib.ladder_rows(doc, self.kinds(doc)["fp32"], 1024, "fp32", [("pair.json", pair)])
        self.assertAlmostEqual(rows[1]["gain"], 2.0)  # 10 ms -> 5 ms in the pair's run, not the main file's
        self.assertEqual(rows[1]["gain_from"], "pair.json")
        self.assertIn("2.00×*", ladder.render(doc, "x.json", 1024, [("pair.json", pair)]))

    def test_sizes_show_each_ladders_last_step_at_the_sizes_people_run(self):
        doc = document()
        doc["runs"] += [self.tensor_run("18_tma_store_epilogue", 1.0), self.tensor_run("18_tma_store_epilogue", 2.0, layout="tn"),
                        self.tensor_run("17_persistent_clusters", 10.0)]
        columns = results_lib.last_steps_at(doc, results_lib.SIZES_PEOPLE_RUN)
        self.assertEqual([(kind, step) for kind, step, _, _ in columns], [("fp32", "02_gmem_coalescing"),
                                                                          ("16-bit", "18_tma_store_epilogue")])
        # Step 18's two runs at 1024^3: 1.0 and 0.5 of cuBLAS, one of them at 95% or more.
        self.assertEqual(columns[1][3][(1024, 1024, 1024)], (0.5, 1.0, 1, 2))
        self.assertIsNone(columns[1][3][(4088, 4104, 4096)])
        text = ladder.render_sizes(doc, "x.json")
        self.assertIn("16-bit 18", text)
        self.assertRegex(text, r"1024×1024×1024 +40–40%  0/1 +50–100%  1/2")
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "test-gpu.json")
            with open(path, "w", encoding="utf-8") as handle:
                json.dump(doc, handle)
            with contextlib.redirect_stdout(io.StringIO()) as printed:
                self.assertEqual(ladder.main(["--sizes", path]), 0)
        self.assertIn("at the sizes people run", printed.getvalue())
        self.assertRegex(printed.getvalue(), r"1024×1024×1024 +40–40%  0/1 +50–100%  1/2")
        # --sizes has its own shapes and no gains: --shape or --pairs beside it is bad usage (exit 2).
        with contextlib.redirect_stderr(io.StringIO()) as error, self.assertRaises(SystemExit) as exit_:
            ladder.main(["--sizes", "--shape", "4096", "x.json"])
        self.assertEqual(exit_.exception.code, 2)
        self.assertIn("leave out --shape and --pairs", error.getvalue())

    def test_the_ladder_is_at_the_pages_size_and_skips_files_without_timed_runs(self):
        # A file of 1024-8192 (shipped) and one of 1024-4096 (tools/run) both show 4096^3, the pages'
        # size; a file without 4096^3 shows its largest.
        doc = document()
        for run in doc["runs"]:
            run["shapes"] = [shape(m, 1.0, 1.0) for m in (1024, 4096, 8192)]
        self.assertIn("at 4096³", ladder.render(doc, "x.json"))
        self.assertIn("at 8192³", ladder.render(doc, "x.json", 8192))
        self.assertIn("at 1024³", ladder.render(document(), "x.json"))
        # tools/run globs build/results/*.json, where a sweep's file may lie beside the results file.
        with tempfile.TemporaryDirectory() as folder:
            path, sweep = os.path.join(folder, "test-gpu.json"), os.path.join(folder, "sweep-05_x-test-gpu.json")
            for name, content in ((path, doc), (sweep, {"candidates": []})):
                with open(name, "w", encoding="utf-8") as handle:
                    json.dump(content, handle)
            with contextlib.redirect_stdout(io.StringIO()) as printed, \
                    contextlib.redirect_stderr(io.StringIO()) as error:
                self.assertEqual(ladder.main([path, sweep]), 0)
            self.assertIn("at 4096³", printed.getvalue())
            self.assertIn("skipping", error.getvalue())
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                self.assertEqual(ladder.main([sweep]), 2)  # nothing left to show

    def test_one_run_is_the_same_commit_within_hours_or_the_same_session(self):
        a = {"commit": "abc", "date": "2026-01-01T00:00:00Z"}
        self.assertTrue(results_lib.same_run(a, dict(a, date="2026-01-01T00:40:00Z")))
        self.assertFalse(results_lib.same_run(a, dict(a, date="2026-01-01T09:00:00Z")))
        self.assertFalse(results_lib.same_run(a, dict(a, commit="abd")))
        self.assertTrue(results_lib.same_run(dict(a, session="s1"), dict(a, session="s1", date="2026-01-05T00:00:00Z")))
        self.assertFalse(results_lib.same_run(dict(a, session="s1"), dict(a, session="s2")))

    def test_tensor_core_ladder_takes_one_run_per_step(self):
        doc = document()
        doc["runs"] += [self.tensor_run("12_wmma", 0.5), self.tensor_run("12_wmma", 0.1, dtype="bf16"),
                        self.tensor_run("12_wmma", 0.1, layout="tn"), self.tensor_run("14_mma_ldmatrix", 0.25)]
        rows = results_lib.ladder_rows(doc, self.kinds(doc)["16-bit"], 1024, "16-bit")
        self.assertEqual([r["step"] for r in rows], ["12_wmma", "14_mma_ldmatrix"])
        self.assertAlmostEqual(rows[1]["gain"], 2.0)
        # Of the dense 16-bit tensor-core peak: 132 SMs x 4096 FLOP x 1980 MHz.
        self.assertAlmostEqual(rows[1]["peak_fraction"], rows[1]["gflops"] / (132 * 4096 * 1980 / 1000.0))

    def test_fp8_ladder_takes_its_run_and_not_the_no_promotion_variant(self):
        doc = document()
        no_promotion = self.tensor_run("19_fp8", 0.1, dtype="e4m3", layout="nt", out="bf16")
        no_promotion["variant"] = "no-promotion"
        doc["runs"] += [self.tensor_run("19_fp8", 0.2, dtype="e4m3", layout="nt", out="bf16"), no_promotion,
                        self.tensor_run("19_fp8", 0.1, dtype="e4m3", layout="nt", out="f32")]
        (_, _, _), (_, _, _), (kind, title, runs) = results_lib.ladder_runs(doc)
        rows = results_lib.ladder_rows(doc, runs, 1024, kind)
        self.assertEqual([r["step"] for r in rows], ["19_fp8"])
        self.assertAlmostEqual(rows[0]["gflops"], results_lib.gflops(1024, 1024, 1024, 0.2))
        self.assertAlmostEqual(rows[0]["peak_fraction"], rows[0]["gflops"] / (132 * 8192 * 1980 / 1000.0))
        self.assertIn("cuBLASLt", title)

    def test_a_step_without_the_shape_shows_its_largest(self):
        doc = document()
        doc["runs"][1]["shapes"] = [shape(512, 1.0, 1.0)]
        text = ladder.render(doc, "x.json", 1024)
        self.assertIn("(at 512³)", text)

    def test_the_shipped_results_render(self):
        files = results_lib.results_files(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs",
                                                       "results"))
        for path in files:
            document = results_lib.load(path)
            text = ladder.render(document, path)
            # A file may hold some of the steps; each GEMM step it holds is on the ladder.
            for step in {run["step"] for run in document["runs"] if run.get("kind") != "bank_demo"}:
                self.assertIn(step, text, path)

    def test_a_missing_file_is_an_error(self):
        with contextlib.redirect_stderr(io.StringIO()):
            self.assertEqual(ladder.main(["/nonexistent/results.json"]), 2)

    def test_the_help_names_every_fp8_step(self):
        self.assertNotIn("the FP8 step ", ladder.__doc__)
        self.assertIn("the FP8 steps", ladder.__doc__)


class LessonTest(unittest.TestCase):
    def test_a_step_against_itself_changes_nothing(self):
        folder = lesson.folder_of("10")
        self.assertEqual(lesson.changed_lines(lesson.lesson_diff(folder, folder)), 0)

    def test_the_step_number_is_normalized(self):
        lines = lesson.normalized(lesson.folder_of("10"), "mapping.hpp")
        self.assertTrue(any("stepNN" in line for line in lines))
        self.assertFalse(any("step10" in line for line in lines))

    def test_every_lesson_is_listed_in_ladder_order(self):
        rows = lesson.stat_rows()  # step 00 has no kernel: the first lesson is 01 -> 02
        self.assertEqual(rows[0][:2], ("01_naive", "02_gmem_coalescing"))
        self.assertTrue(all(before < after for before, after, _ in rows))
        self.assertTrue(all(lines > 0 for _, _, lines in rows))

    def test_an_unknown_step_is_bad_usage(self):
        with contextlib.redirect_stderr(io.StringIO()), self.assertRaises(SystemExit) as raised:
            lesson.main(["99"])
        self.assertEqual(raised.exception.code, 2)


class PtxasNotesTest(unittest.TestCase):
    OUTPUT = ("ptxas info    : (C7511) Potential Performance Loss: wgmma.mma_async instructions are serialized due "
              "to insufficient register resources for the wgmma pipeline in the function '_Z6kernelILi3EEvv'\n"
              "ptxas info    : Used 168 registers\n"
              "ptxas info    : (C7515) Potential Performance Loss: wgmma.mma_async instructions are serialized due "
              "to non wgmma instructions defining accumulator registers of a wgmma between start and end of the "
              "pipeline stage in the function '_Z6kernelILi1EEvv'\n")

    def test_each_serialisation_note_is_read_with_its_kernel(self):
        notes = ptxas_notes.parse_notes(self.OUTPUT)
        self.assertEqual([(code, kernel) for code, kernel, _ in notes],
                         [("C7511", "_Z6kernelILi3EEvv"), ("C7515", "_Z6kernelILi1EEvv")])
        self.assertTrue(notes[0][2].startswith("wgmma.mma_async instructions are serialized due to insufficient"))
        self.assertEqual(ptxas_notes.parse_notes("ptxas info    : Used 168 registers\n"), [])

    def test_a_listed_kernel_is_named_once_per_note(self):
        lines = ptxas_notes.lines_of("22_tile_width", ptxas_notes.parse_notes(self.OUTPUT * 2))
        self.assertEqual(len(lines), 2)
        self.assertTrue(all(line.startswith("22_tile_width C751") for line in lines))

    def test_a_step_that_is_not_a_number_is_bad_usage(self):
        with contextlib.redirect_stderr(io.StringIO()), self.assertRaises(SystemExit) as raised:
            ptxas_notes.main(["twenty-two"])
        self.assertEqual(raised.exception.code, 2)

    def test_a_missing_earlier_list_is_bad_usage_before_any_compile(self):
        with tempfile.TemporaryDirectory() as build, contextlib.redirect_stderr(io.StringIO()) as err, \
                self.assertRaises(SystemExit) as raised:
            ptxas_notes.main(["--build", build, "22", "--against", os.path.join(build, "none.txt")])
        self.assertEqual(raised.exception.code, 2)
        self.assertIn("none.txt not found", err.getvalue())

    def test_a_build_without_compile_commands_is_bad_usage(self):
        with tempfile.TemporaryDirectory() as build, contextlib.redirect_stderr(io.StringIO()), \
                self.assertRaises(SystemExit) as raised:
            ptxas_notes.main(["--build", build, "22"])
        self.assertEqual(raised.exception.code, 2)


class DocCommandsTest(unittest.TestCase):
    def test_commands_come_from_sh_blocks_without_transcripts(self):
        with tempfile.TemporaryDirectory() as docs:
            with open(os.path.join(docs, "12-x.md"), "w", encoding="utf-8") as handle:
                handle.write("build/bin/14_mma_ldmatrix --size 8    # prose, not a block\n"
                             "```sh\n"
                             "build/bin/14_mma_ldmatrix --param BK=32 --layout tn   # a comment\n"
                             "$ build/bin/14_mma_ldmatrix --shapes 16x33x16\n"
                             "build/bin/gemm_viewer --help\n"
                             "tools/clock_watch.py --interval-ms 10 -- build/bin/18_tma_store_epilogue --size 8192\n"
                             "```\n"
                             "```\nbuild/bin/01_naive\n```\n")
            found = check_doc_commands.doc_commands(docs)
        self.assertEqual([(program, arguments) for _, _, program, arguments in found],
                         [("14_mma_ldmatrix", ["--param", "BK=32", "--layout", "tn"]),
                          ("18_tma_store_epilogue", ["--size", "8192"])])
        self.assertEqual(found[0][1], 3)


class ProfilerTest(unittest.TestCase):
    def fake_ncu(self, folder, code):
        path = os.path.join(folder, "ncu")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(f"#!/bin/sh\nexit {code}\n")
        os.chmod(path, 0o755)
        return path

    def test_a_program_this_gpu_cannot_run_is_skipped_not_an_error(self):
        # Exit 77 (no suitable GPU: step 18 on a GPU other than compute capability 9.0) is its own
        # exception, which the tool records as skipped; any other failure stays an error.
        with tempfile.TemporaryDirectory() as folder:
            with self.assertRaises(check_model_ncu.NoSuitableGpu):
                check_model_ncu.measure(self.fake_ncu(folder, 77), ["build/bin/18_tma_store_epilogue"], "hopper_gemm")
            with self.assertRaises(RuntimeError):
                check_model_ncu.measure(self.fake_ncu(folder, 3), ["build/bin/18_tma_store_epilogue"], "hopper_gemm")

    def test_a_folder_without_comparison_files_is_an_error_not_a_pass(self):
        # --check-shipped must not pass when there is nothing to check.
        with tempfile.TemporaryDirectory() as folder:
            self.assertEqual(check_model_ncu.check_shipped("build", folder), 2)

    def test_traced_steps_without_a_case_are_named(self):
        steps = [declared("01_a", "fp32"), declared("23_b", "fp8"), declared("00_c", "cpu", traced=False)]
        self.assertEqual(check_model_ncu.unprofiled(steps, [{"step": "01_a"}]), ["23_b"])

    def test_merging_some_steps_keeps_the_others_and_names_the_new_cases_commit(self):
        case = lambda step, shape: {"step": step, "variant": "", "shape": shape, "beta": 0.0, "counters": {}}
        existing = {"gpu": "G", "ncu": "N", "commit": "old", "cases": [case("19_fp8", "a"), case("21_x", "a")],
                    "skipped": [{"step": "21_x", "reason": "r"}]}
        new = {"gpu": "G", "ncu": "N", "commit": "new", "cases": [case("21_x", "b"), case("22_y", "b")], "skipped": []}
        merged = check_model_ncu.merge_steps(existing, new, {"21_x", "22_y"})
        self.assertEqual(merged["commit"], "old")
        self.assertEqual([(c["step"], c["shape"], c.get("commit")) for c in merged["cases"]],
                         [("19_fp8", "a", None), ("21_x", "b", "new"), ("22_y", "b", "new")])
        self.assertEqual(merged["skipped"], [])
        with self.assertRaises(SystemExit):
            check_model_ncu.merge_steps(existing, dict(new, gpu="other"), {"21_x"})


def declared(name, kind, **fields):
    """A step as BUILD/steps.json declares it (gemm_add_step)."""
    step = {"name": name, "number": name[:2], "kind": kind, "min_arch": 75, "architectures": ["75"],
            "aligned_rows": False, "traced": True, "tunables": False, "bench_shapes": [], "bench_runs": [],
            "ncu_shapes": [], "ncu_args": []}
    step.update(fields)
    return step


class BenchAllSkipTest(unittest.TestCase):
    def test_an_architecture_specific_step_is_skipped_after_its_first_refusal(self):
        # Two built "steps" that refuse every run (exit 77): the sm_90a one is asked once, the other
        # for each of its runs (a variant may run where another does not).
        build = tempfile.mkdtemp()
        os.makedirs(os.path.join(build, "bin"))
        calls = os.path.join(build, "calls.txt")
        for name in ("15_x", "12_x"):
            program = os.path.join(build, "bin", name)
            with open(program, "w", encoding="utf-8") as handle:
                handle.write(f"#!/bin/sh\necho {name} >> {calls}\nexit 77\n")
            os.chmod(program, 0o755)
        steps = [declared("15_x", "tensor_core", architectures=["90a"]), declared("12_x", "tensor_core")]
        with open(os.path.join(build, "steps.json"), "w", encoding="utf-8") as handle:
            json.dump({"steps": steps}, handle)
        argv = sys.argv
        sys.argv = ["bench_all.py", "--build", build]
        try:
            with contextlib.redirect_stdout(io.StringIO()) as out, contextlib.redirect_stderr(io.StringIO()):
                code = bench_all.main()
        finally:
            sys.argv = argv
        with open(calls, encoding="utf-8") as handle:
            made = handle.read().split()
        self.assertEqual(code, 77)
        self.assertEqual(made.count("15_x"), 1)
        self.assertEqual(made.count("12_x"), len(bench_all.TENSOR_CORE_RUNS))
        self.assertIn("its other runs are skipped too", out.getvalue())
        shutil.rmtree(build)


class DeclaredStepsTest(unittest.TestCase):
    """What bench_all and check_model_ncu run follows from a step's declaration: its kind's runs and
    shapes, and what the step adds."""

    def test_a_kind_gives_its_runs_and_shapes(self):
        fp32 = bench_all.runs_of(declared("05_x", "fp32"), None, [], "")
        self.assertEqual(fp32, [(["--shapes", bench_all.STANDARD_SHAPES], "")])
        tc = bench_all.runs_of(declared("12_x", "tensor_core"), None, ["--reps", "3"], "")
        self.assertEqual(len(tc), len(bench_all.TENSOR_CORE_RUNS))
        self.assertEqual(tc[0][0][:2], ["--shapes", bench_all.TENSOR_CORE_SHAPES])
        self.assertEqual(tc[0][0][-2:], ["--reps", "3"])
        aligned = bench_all.runs_of(declared("13_x", "tensor_core", aligned_rows=True), None, [], "f16")
        self.assertEqual([run[0][1] for run in aligned], [bench_all.ALIGNED_ROWS_SHAPES])
        self.assertEqual(bench_all.runs_of(declared("03_x", "demo"), "64", [], ""), [([], "")])

    def test_a_step_adds_its_shapes_and_runs(self):
        step = declared("19_x", "fp8", bench_shapes=["1536"],
                        bench_runs=[{"label": "no-promotion", "args": ["--param", "PROMOTE=0"]}])
        runs = bench_all.runs_of(step, None, [], "")
        self.assertEqual(len(runs), len(bench_all.FP8_RUNS) + 1)
        self.assertEqual(runs[0][0][1], bench_all.FP8_SHAPES + ",1536")
        self.assertEqual(runs[-1], (["--shapes", bench_all.FP8_SHAPES + ",1536", "--param", "PROMOTE=0"],
                                    "no-promotion"))
        # Shapes given on the command line replace the kind's and the step's.
        self.assertEqual(bench_all.runs_of(step, "128", [], "")[0][0][:2], ["--shapes", "128"])

    def test_the_cpu_reference_and_unbuilt_steps_are_not_benchmarked(self):
        with tempfile.TemporaryDirectory() as build:
            os.makedirs(os.path.join(build, "bin"))
            for name in ("00_cpu", "01_x"):
                path = os.path.join(build, "bin", name)
                with open(path, "w", encoding="utf-8") as handle:
                    handle.write("#!/bin/sh\n")
                os.chmod(path, 0o755)
            steps = [declared("00_cpu", "cpu"), declared("01_x", "fp32"), declared("02_y", "fp32")]
            self.assertEqual([step["name"] for step, _ in bench_all.find_steps(build, steps, set())], ["01_x"])
            with self.assertRaises(SystemExit):  # not configured: no steps.json
                bench_all.load_manifest(build)

    def test_profiled_cases_are_the_kinds_with_the_steps_shapes_and_arguments(self):
        step = declared("18_x", "tensor_core", ncu_shapes=["264x520x64"])
        self.assertEqual(check_model_ncu.cases_of(step),
                         [(beta, shapes + ["264x520x64"]) for beta, shapes in check_model_ncu.TENSOR_CORE_CASES])
        self.assertEqual(check_model_ncu.program_args_of(declared("22_x", "fp8")), ["--defaults", "--out", "f32"])
        self.assertEqual(check_model_ncu.program_args_of(declared("11_x", "fp32", ncu_args=["--param", "SPLIT=0"])),
                         ["--defaults", "--param", "SPLIT=0"])
        self.assertEqual(check_model_ncu.cases_of(declared("05_x", "fp32")), check_model_ncu.GEMM_CASES)


# A stand-in for nvidia-smi: one reading per call, or a reading every few ms with -lms, alternating
# between a busy card held at a lower clock by the power cap and an idle one. With FAKE_SMI_OLD set it
# refuses the field names that drivers before 530 do not know.
FAKE_SMI = """#!/usr/bin/env python3
import os, sys, time
query = ([a for a in sys.argv if a.startswith("--query-gpu=")] or ["--query-gpu="])[0][len("--query-gpu="):].split(",")
new_only = {"power.draw.instant", "clocks_event_reasons.active", "enforced.power.limit"}
if os.environ.get("FAKE_SMI_OLD") and new_only & set(query):
    print("Field is not a valid field to query."); sys.exit(2)
busy = {"timestamp": "2026/01/01 00:00:00.000", "clocks.sm": "1500", "clocks.max.sm": "1980",
        "power.draw.instant": "750.5", "power.draw": "740.0", "enforced.power.limit": "700.00",
        "power.limit": "700.00", "temperature.gpu": "50", "utilization.gpu": "100",
        "clocks_event_reasons.active": "0x0000000000000004", "clocks_throttle_reasons.active": "0x0000000000000004"}
idle = dict(busy, **{"clocks.sm": "1980", "utilization.gpu": "0", "power.draw.instant": "[N/A]",
                     "clocks_event_reasons.active": "0x0000000000000001", "clocks_throttle_reasons.active": "0x0000000000000001"})
line = lambda reading: ", ".join(reading[q] for q in query)
if "-L" in sys.argv:
    print("GPU 0: Fake GPU (UUID: GPU-0)"); sys.exit(0)
if "-lms" not in sys.argv:
    print(line(busy)); sys.exit(0)
i = 0
while True:
    print(line(busy if i % 2 == 0 else idle), flush=True); i += 1; time.sleep(0.005)
"""


@contextlib.contextmanager
def path_with(folder, keep_path=True):
    saved = os.environ["PATH"]
    os.environ["PATH"] = folder + (os.pathsep + saved if keep_path else "")
    try:
        yield
    finally:
        os.environ["PATH"] = saved


class ClockWatchTest(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        smi = os.path.join(self.folder.name, "nvidia-smi")
        with open(smi, "w", encoding="utf-8") as handle:
            handle.write(FAKE_SMI)
        os.chmod(smi, 0o755)
        self.out = os.path.join(self.folder.name, "clocks.json")

    def tearDown(self):
        os.environ.pop("FAKE_SMI_OLD", None)
        self.folder.cleanup()

    def watch(self, *command):
        with path_with(self.folder.name), contextlib.redirect_stdout(io.StringIO()):
            code = clock_watch.main(["--json", self.out, "--"] + list(command))
        return code

    def test_summarizes_only_the_samples_under_load(self):
        self.assertEqual(self.watch(sys.executable, "-c", "import time; time.sleep(0.3)"), 0)
        with open(self.out, encoding="utf-8") as handle:
            written = json.load(handle)
        summary = written["summary"]
        self.assertGreater(summary["samples_under_load"], 0)
        self.assertLess(summary["samples_under_load"], summary["samples"])
        self.assertEqual(summary["sm_clock_mhz"], {"median": 1500, "min": 1500, "max": 1500})
        self.assertEqual(summary["max_sm_clock_mhz"], 1980)
        self.assertEqual(summary["power_w"]["max"], 750.5)
        self.assertEqual(summary["reasons"], {"SW power cap": 1.0})
        self.assertEqual(written["fields"]["power_w"], "power.draw.instant")

    def test_older_drivers_field_names(self):
        os.environ["FAKE_SMI_OLD"] = "1"
        self.assertEqual(self.watch(sys.executable, "-c", "import time; time.sleep(0.3)"), 0)
        with open(self.out, encoding="utf-8") as handle:
            written = json.load(handle)
        self.assertEqual(written["fields"]["power_w"], "power.draw")
        self.assertEqual(written["fields"]["reasons"], "clocks_throttle_reasons.active")
        self.assertEqual(written["summary"]["reasons"], {"SW power cap": 1.0})

    def test_the_commands_exit_code_comes_back(self):
        self.assertEqual(self.watch(sys.executable, "-c", "import sys; sys.exit(3)"), 3)

    def test_an_unwritable_json_path_is_bad_usage_before_the_run(self):
        marker = os.path.join(self.folder.name, "ran")
        with path_with(self.folder.name), contextlib.redirect_stderr(io.StringIO()) as err:
            code = clock_watch.main(["--json", "/nonexistent-dir/x.json", "--", "touch", marker])
        self.assertEqual(code, 2)
        self.assertIn("cannot write --json", err.getvalue())
        self.assertFalse(os.path.exists(marker))

    def test_a_gpu_index_not_listed_is_bad_usage(self):
        with path_with(self.folder.name), contextlib.redirect_stderr(io.StringIO()) as err:
            code = clock_watch.main(["--device", "3", "--", "true"])
        self.assertEqual(code, 2)
        self.assertIn("GPU 3 does not exist", err.getvalue())

    def test_no_command_is_bad_usage(self):
        with contextlib.redirect_stderr(io.StringIO()):
            self.assertEqual(clock_watch.main(["--"]), 2)

    def test_no_nvidia_smi_means_no_gpu(self):
        with tempfile.TemporaryDirectory() as empty, path_with(empty, keep_path=False), \
                contextlib.redirect_stderr(io.StringIO()):
            self.assertEqual(clock_watch.main(["--", "true"]), 77)

    def test_unreadable_values_are_left_out(self):
        samples = clock_watch.parse(["t, 1500, 1980, [N/A], 700, 50, 100, 0x4",
                                     "t, 1700, 1980, 720, 700, 51, 100, 0x0", "a partial line"])
        summary = clock_watch.summarize(samples)
        self.assertEqual(summary["samples_under_load"], 2)
        self.assertEqual(summary["power_w"], {"median": 720, "min": 720, "max": 720})
        self.assertEqual(summary["reasons"], {"SW power cap": 0.5})


class DocLinksTest(unittest.TestCase):
    def test_heading_ids_are_githubs(self):
        self.assertEqual(check_doc_links.slug("8- and 16-byte accesses"), "8--and-16-byte-accesses")
        self.assertEqual(check_doc_links.slug("Step 12 (mma.sync pipeline)"), "step-12-mmasync-pipeline")
        self.assertEqual(check_doc_links.slug("01 · Naive: one thread per element of C"),
                         "01--naive-one-thread-per-element-of-c")
        self.assertEqual(check_doc_links.slug("Past fp32: the same product on the tensor cores"),
                         "past-fp32-the-same-product-on-the-tensor-cores")

    def test_links_images_and_paths_are_found_and_checked(self):
        with tempfile.TemporaryDirectory() as docs:
            page = os.path.join(docs, "page.md")
            with open(page, "w", encoding="utf-8") as handle:
                handle.write("# A heading\n"
                             "[here](#a-heading) [there](#nowhere) ![a picture](missing.png) [web](https://x.org)\n"
                             "`steps/09_warptiling/mapping.hpp` `steps/99_none/mapping.hpp` `build/bin/x` "
                             "`[not a link](nope.md)`\n"
                             "```sh\n[in a block](gone.md) `common/none.hpp`\n```\n")
            problems = check_doc_links.check_page(page, set())
        self.assertEqual(len(problems), 3, problems)
        self.assertIn("no heading with the id 'nowhere'", problems[0])
        self.assertIn("missing.png", problems[1])
        self.assertIn("steps/99_none/mapping.hpp", problems[2])


    def test_a_live_view_link_is_checked_by_its_picture(self):
        with tempfile.TemporaryDirectory() as docs:
            os.makedirs(os.path.join(docs, "images"))
            open(os.path.join(docs, "images", "shown.png"), "w").close()
            page = os.path.join(docs, "page.md")
            with open(page, "w", encoding="utf-8") as handle:
                handle.write("[![a picture](images/shown.png)](../build-web/index.html?step=01_naive&warp=1)\n"
                             "[![gone](images/gone.png)](../build-web/index.html?step=01_naive)\n")
            problems = check_doc_links.check_page(page, set())
        self.assertEqual(len(problems), 1, problems)  # the picture inside is checked, the build's page is not
        self.assertIn("gone.png", problems[0])


class QuotesTest(unittest.TestCase):
    """tools/check_quotes.py: a page's C++ blocks are quotes of today's source, or marked sketches."""
    SOURCE = ("// Step 99.\n"
              "GEMM_HD int twice(int x) {\n"
              "  const int y = x + x;\n"
              "  return y;\n"
              "}\n"
              "\n"
              "GEMM_HD int thrice(int x) {\n"
              "  return 3 * x;\n"
              "}\n")

    def check(self, page_text):
        with tempfile.TemporaryDirectory() as root:
            os.makedirs(os.path.join(root, "steps", "99_test"))
            os.makedirs(os.path.join(root, "docs"))
            with open(os.path.join(root, "steps", "99_test", "mapping.hpp"), "w", encoding="utf-8") as handle:
                handle.write(self.SOURCE)
            page = os.path.join(root, "docs", "99-test.md")
            with open(page, "w", encoding="utf-8") as handle:
                handle.write(page_text)
            original_root = render_docs.ROOT
            render_docs.ROOT = root
            try:
                problems, _ = check_quotes.check_page(page, root)
            finally:
                render_docs.ROOT = original_root
        return problems

    def test_a_current_quote_passes_dedented(self):
        self.assertEqual(self.check("Text.\n\n<!-- quote steps/99_test/mapping.hpp -->\n```cpp\n"
                                    "const int y = x + x;\n    return y;\n```\n"), [])

    def test_a_stale_quote_fails_naming_page_line_and_file(self):
        problems = self.check("# Page\n\n<!-- quote steps/99_test/mapping.hpp -->\n```cuda\n"
                              "GEMM_HD int twice(int x) {\n  return x << 1;\n}\n```\n")
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("docs/99-test.md:6", problems[0])
        self.assertIn("`return x << 1;` is not in steps/99_test/mapping.hpp", problems[0])

    def test_lines_must_be_consecutive_unless_elided(self):
        skipping = "<!-- quote steps/99_test/mapping.hpp -->\n```cpp\nGEMM_HD int twice(int x) {\n  return y;\n```\n"
        problems = self.check(skipping)
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("not after the lines before it", problems[0])
        self.assertEqual(self.check(skipping.replace("{\n  return", "{\n  // ... the sum\n  return")), [])
        # An elision spans definitions too; the lines after it must still follow in the file.
        self.assertEqual(self.check("<!-- quote steps/99_test/mapping.hpp -->\n```cpp\nGEMM_HD int twice(int x) {\n"
                                    "// ...\nGEMM_HD int thrice(int x) {\n  return 3 * x;\n```\n"), [])
        self.assertEqual(len(self.check("<!-- quote steps/99_test/mapping.hpp -->\n```cpp\nreturn 3 * x;\n// ...\n"
                                        "return y;\n```\n")), 1)

    def test_a_sketch_passes_and_an_unmarked_block_fails(self):
        sketch = "Schematically:\n\n<!-- sketch -->\n```cpp\nint made_up();  // not in any file\n```\n"
        self.assertEqual(self.check(sketch), [])
        problems = self.check(sketch.replace("<!-- sketch -->\n", ""))
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("neither <!-- quote FILE --> nor <!-- sketch -->", problems[0])
        # An unmarked block that does quote a file is told which.
        problems = self.check("```cpp\nGEMM_HD int thrice(int x) {\n  return 3 * x;\n```\n")
        self.assertIn("(it quotes steps/99_test/mapping.hpp)", problems[0])

    def test_a_quote_of_a_missing_file_fails(self):
        problems = self.check("<!-- quote steps/99_test/gone.hpp -->\n```cpp\nreturn y;\n```\n")
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("not a source file of the checkout", problems[0])

    def test_a_rendered_definition_is_checked_against_render_docs(self):
        block = ("<!-- code file=steps/99_test/mapping.hpp names=thrice -->\nFrom `steps/99_test/mapping.hpp`:\n\n"
                 "```cpp\nGEMM_HD int thrice(int x) {\n  return 3 * x;\n}\n```\n<!-- end code -->\n")
        self.assertEqual(self.check(block), [])
        problems = self.check(block.replace("3 * x", "x * 3"))
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("render_docs.py", problems[0])

    def test_other_languages_are_not_checked(self):
        self.assertEqual(self.check("```sh\nbuild/bin/01_naive --help\n```\n```text\nint x;\n```\n"), [])


class LiveLinkTest(unittest.TestCase):
    """tools/pictures.py's links to the viewer in a browser follow viewer/link.hpp's rule."""

    ARGUMENTS = ["--step", "14_mma_ldmatrix", "--shape", "128x128x64", "--param", "BM=64", "--defaults", "--warp", "1",
                 "--beta", "-0.5", "--results", "my results/a&b.json"]
    # The same string tests/viewer/test_viewer_model.cpp (ViewerLink) expects of link.hpp.
    QUERY = "step=14_mma_ldmatrix&shape=128x128x64&param=BM=64&defaults&warp=1&beta=-0.5&results=my%20results%2Fa%26b.json"

    def test_the_query_is_the_command_line(self):
        self.assertEqual(pictures.query_from_arguments(self.ARGUMENTS), self.QUERY)
        self.assertEqual(pictures.arguments_from_query("?" + self.QUERY), self.ARGUMENTS)

    def test_a_picture_links_to_its_selection_without_its_window(self):
        arguments = ["--panel", "thread", "--step", "01_naive", "--colour", "warp", "--size", "1100x1300",
                     "--theme", "light", "--font-scale", "1.5"]
        self.assertEqual(pictures.live_link(arguments), "../build-web/index.html?panel=thread&step=01_naive&colour=warp")

    def test_pages_are_linked_once_and_relinked(self):
        name, arguments = pictures.PICTURES[0]
        link = pictures.live_link(arguments)
        bare = f"text ![alt]({'images/' + name}) and ![other](images/not-a-viewer-picture.png)\n"
        linked = pictures.linked_page(bare)
        self.assertEqual(linked, f"text [![alt](images/{name})]({link}) and ![other](images/not-a-viewer-picture.png)\n")
        self.assertEqual(pictures.linked_page(linked), linked)
        stale = linked.replace(link, "../build-web/index.html?step=old")
        self.assertEqual(pictures.linked_page(stale), linked)


if __name__ == "__main__":
    unittest.main()


class FrameTimesTest(unittest.TestCase):
    def test_the_viewers_output_is_read(self):
        import frame_times
        text = "something\nframe time: 12.34 ms (median of 60 frames)\ndraw data: 5001 vertices, 7515 indices, 5 lists\n"
        self.assertEqual(frame_times.parse_output(text), (12.34, 60, 5001, 7515))

    def test_output_without_a_frame_time_is_refused(self):
        import frame_times
        self.assertIsNone(frame_times.parse_output("draw data: 5001 vertices, 7515 indices, 5 lists\n"))

    def test_the_table_says_when_nothing_was_measured(self):
        with tempfile.TemporaryDirectory() as folder:
            self.assertIn("Not measured yet", render_docs.frame_times_table(folder))
