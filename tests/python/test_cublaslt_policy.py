"""python/tunescope_cublaslt_policy.py against a scripted cuBLASLt: every fallback with its reason, on the committed
policy fixture (tests/data/cublaslt-policy/policy.json). No GPU needed. Run by ctest (python_cublaslt_policy)."""
import copy
import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
import tunescope_cublaslt_policy as tcp  # noqa: E402

DATA = os.path.join(ROOT, "tests", "data", "cublaslt-policy")
MADE = 0xABCD << 48


class Scripted:
    """A cuBLASLt stand-in. Algorithms it makes (algo_init) keep attribute N in word N (cluster in bits 32..47 of
    word 0); other data words decode to what `recorded` says (a recorded answer for the fixture's bytes)."""

    def __init__(self):
        self.version_value = 130100
        self.device_value = (0, "NVIDIA H200", 9, 0)
        self.create_status = self.init_status = self.check_status = self.heuristic_status = 0
        self.check_workspace = 0
        self.cap_alignment = 16
        self.recorded = {}
        self.heuristic_algo = [0x1234] + [0] * 7
        self.calls = {"create": 0, "destroy": 0, "init": 0, "set": 0, "check": 0, "heuristic": 0}
        self.checked_on = None

    def version(self):
        return self.version_value

    def device(self):
        return self.device_value

    def create_handle(self):
        return "handle"

    def destroy_handle(self, handle):
        pass

    def create_descriptors(self, mm):
        self.calls["create"] += 1
        return self.create_status, ["op", "a", "b", "c", "d"]

    def destroy_descriptors(self, d):
        self.calls["destroy"] += 1

    def algo_init(self, handle, mm, algo_id):
        self.calls["init"] += 1
        return self.init_status, [MADE | algo_id] + [0] * 7

    def config_set(self, algo, attr, value, ctype):
        self.calls["set"] += 1
        if 1 <= attr <= 7:
            algo[attr] = value
        elif attr == 8:
            algo[0] = (algo[0] & ~(0xFFFF << 32)) | ((value & 0xFFFF) << 32)
        return 0

    def config_get(self, algo, attr, ctype):
        if algo[0] & MADE == MADE:
            return 0, (algo[0] & 0xFFFFFFFF if attr == 0 else (algo[0] >> 32) & 0xFFFF if attr == 8 else algo[attr])
        if algo[0] not in self.recorded:
            return 7, None
        return 0, self.recorded[algo[0]].get(attr)

    def cap_get(self, algo, cap):
        return 0, self.cap_alignment

    def algo_check(self, handle, d, algo):
        self.calls["check"] += 1
        self.checked_on = d
        return self.check_status, self.check_workspace, 1.0

    def heuristic_first(self, handle, d, mm):
        self.calls["heuristic"] += 1
        if self.heuristic_status:
            return self.heuristic_status, None, 0, 0.0
        return 0, list(self.heuristic_algo), 0, 1.0


def first_shape(**changes):
    mm = tcp.Matmul.row_major(64, 5376, 14336, "TN", "bf16", workspace_bytes=64 << 20)
    for k, v in changes.items():
        setattr(mm, k, v)
    return mm


class LoaderTest(unittest.TestCase):
    def setUp(self):
        self.policy = tcp.Policy.from_file(os.path.join(DATA, "policy.json"))
        self.first = self.policy.entries[0]

    def scripted(self):
        s = Scripted()
        s.recorded[self.first.data[0]] = dict(self.first.attributes)
        return s

    def test_policy_algorithm_after_its_check(self):
        self.assertEqual(len(self.policy.entries), 3)
        self.assertEqual(self.first.data[0], 0x000000A400000042)
        s = self.scripted()
        s.check_workspace = 2752528
        mine = ["my op", "A", "B", "C", "D"]
        c = self.policy.select(first_shape(), descriptors=mine, api=s)
        self.assertEqual((c.source, c.reason, c.entry), ("policy", "policy", 0))
        self.assertEqual(c.algo, self.first.data)
        self.assertIs(s.checked_on, mine)
        self.assertEqual((s.calls["check"], s.calls["heuristic"], s.calls["create"]), (1, 0, 0))
        self.assertEqual(list(c.cublaslt_algo()), self.first.data)

    def fallback(self, setup, mm=None):
        s = self.scripted()
        mm = mm or first_shape()
        setup(s, mm)
        c = self.policy.select(mm, descriptors=["op", "a", "b", "c", "d"], api=s)
        self.assertEqual(c.source, "heuristic")
        self.assertEqual(c.algo[0], 0x1234)  # never the refused algorithm
        return c

    def test_fallbacks_say_why(self):
        c = self.fallback(lambda s, mm: setattr(mm, "k", 8192))
        self.assertEqual(c.reason, "no-entry")
        self.assertIn("no entry has m=5376 n=64 k=8192", c.detail)
        c = self.fallback(lambda s, mm: setattr(s, "device_value", (0, "NVIDIA H100 80GB HBM3", 9, 0)))
        self.assertEqual(c.reason, "other-gpu")
        self.assertIn("NVIDIA H200 (sm_90)", c.detail)
        c = self.fallback(lambda s, mm: setattr(s, "device_value", (0, "NVIDIA H200", 10, 0)))
        self.assertEqual(c.reason, "other-gpu")
        c = self.fallback(lambda s, mm: setattr(s, "version_value", 130200))
        self.assertEqual(c.reason, "other-cublaslt-version")
        self.assertIn("130100", c.detail)
        self.assertIn("130200", c.detail)
        c = self.fallback(lambda s, mm: setattr(s, "check_status", 15))
        self.assertEqual(c.reason, "check-failed")
        self.assertIn("CUBLAS_STATUS_NOT_SUPPORTED", c.detail)

        def small_workspace(s, mm):
            s.check_workspace, mm.workspace_bytes = 2752528, 1 << 20
        self.assertEqual(self.fallback(small_workspace).reason, "workspace-too-small")

        def misaligned(s, mm):
            s.cap_alignment, mm.alignment = 256, (256, 16, 256, 256)
        c = self.fallback(misaligned)
        self.assertEqual(c.reason, "alignment")
        self.assertIn("256-byte aligned B", c.detail)

        def other_tile(s, mm):
            s.recorded[self.first.data[0]][tcp.CONFIG_TILE_ID] = 165
        c = self.fallback(other_tile)
        self.assertEqual(c.reason, "attributes-disagree")
        self.assertIn("= 165, the policy says 164", c.detail)

    def test_seed_entry_is_rebuilt_from_its_attributes(self):
        e = self.policy.entries[2]
        self.assertIsNone(e.data)
        self.assertNotIn(tcp.CONFIG_INNER_SHAPE_ID, e.attributes)
        mm = tcp.Matmul.row_major(37824, 5376, 14336, "TN", "nvfp4", workspace_bytes=0)
        s = Scripted()
        s.device_value, s.version_value = (0, "NVIDIA GB10", 12, 1), 130000
        c = self.policy.select(mm, descriptors=["op", "a", "b", "c", "d"], api=s)
        self.assertEqual(c.source, "policy")
        self.assertEqual((s.calls["init"], s.calls["set"]), (1, 6))
        self.assertEqual((c.algo[0] & 0xFFFFFFFF, c.algo[1], c.algo[6]), (70, 20, 37))
        s.init_status = 15
        c = self.policy.select(mm, descriptors=["op", "a", "b", "c", "d"], api=s)
        self.assertEqual((c.source, c.reason), ("heuristic", "rebuild-failed"))
        self.assertIn("cublasLtMatmulAlgoInit(70): CUBLAS_STATUS_NOT_SUPPORTED", c.detail)

    def test_nothing_at_all_is_no_algorithm(self):
        s = self.scripted()
        s.heuristic_status = 15
        c = self.policy.select(first_shape(k=1), api=s)
        self.assertFalse(c.ok)
        self.assertEqual(c.reason, "no-entry")
        self.assertIn("cublasLtMatmulAlgoGetHeuristic gave no algorithm", c.detail)
        self.assertEqual((s.calls["create"], s.calls["destroy"]), (1, 1))
        s = self.scripted()
        s.create_status = 7
        c = self.policy.select(first_shape(), api=s)
        self.assertEqual((c.ok, c.reason, s.calls["heuristic"]), (False, "descriptors-failed", 0))

    def test_hipblaslt_entries_are_not_cublaslt(self):
        policy = tcp.Policy.from_file(os.path.join(DATA, "rocm-policy.json"))
        c = policy.select(first_shape(), descriptors=["op", "a", "b", "c", "d"], api=Scripted())
        self.assertEqual((c.source, c.reason), ("heuristic", "other-library"))

    def test_malformed_policies_name_the_pointer(self):
        with open(os.path.join(DATA, "policy.json")) as f:
            doc = json.load(f)

        def pointer(change):
            d = copy.deepcopy(doc)
            change(d)
            with self.assertRaises(tcp.PolicyError) as raised:
                tcp.Policy.from_json(d, "p.json")
            return raised.exception.pointer
        self.assertEqual(pointer(lambda d: d.update(format="decision-fla-l2norm-profile-v1")), "/format")
        self.assertEqual(pointer(lambda d: d["entries"][0]["algo"]["data_words"].pop()), "/entries/0/algo/data_words")
        self.assertEqual(pointer(lambda d: d["entries"][0]["algo"]["data_words"].__setitem__(3, "0x12")),
                         "/entries/0/algo/data_words/3")
        self.assertEqual(pointer(lambda d: d["entries"][1]["algo"]["attributes"].pop("tile_id")),
                         "/entries/1/algo/attributes/tile_id")
        self.assertEqual(pointer(lambda d: d["entries"][0]["matmul"].__setitem__("m", "5376")), "/entries/0/matmul/m")
        unknown = copy.deepcopy(doc)
        unknown["entries"][0]["matmul"]["a_type"] = "CUDA_R_99X"
        policy = tcp.Policy.from_json(unknown, "p.json")
        self.assertEqual(policy.entries[0].unknown_name, "CUDA_R_99X")
        c = policy.select(first_shape(), descriptors=["op", "a", "b", "c", "d"], api=self.scripted())
        self.assertEqual(c.reason, "no-entry")
        with self.assertRaises(tcp.PolicyError) as raised:
            tcp.Policy.from_file(os.path.join(DATA, "no-such-policy.json"))
        self.assertIn("no-such-policy.json", str(raised.exception))

    def test_row_major_matches_the_export(self):
        # The same description export-cublaslt wrote for the explorer's 64x5376x14336 TN BF16.
        self.assertEqual(first_shape().key(), self.first.matmul.key())
        fp8 = tcp.Matmul.row_major(37824, 5376, 14336, "TN", "fp8e4m3", workspace_bytes=64 << 20)
        self.assertEqual(fp8.key(), self.policy.entries[1].matmul.key())


if __name__ == "__main__":
    unittest.main()
