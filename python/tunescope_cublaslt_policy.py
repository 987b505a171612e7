"""TuneScope's cuBLASLt policy loader for Python: ctypes only, no build step (docs/cublaslt-policy.md).

    import tunescope_cublaslt_policy as tcp
    policy = tcp.Policy.from_file("policy.json")          # tunescope-cli export-cublaslt
    mm = tcp.Matmul.row_major(64, 5376, 14336, "TN", "bf16", workspace_bytes=64 << 20)
    choice = policy.select(mm)                            # real cuBLASLt through ctypes
    if not choice.ok: raise RuntimeError(choice.detail)   # not even the heuristic had an algorithm
    algo = choice.cublaslt_algo()                         # a ctypes cublasLtMatmulAlgo_t (8 x uint64)
    if choice.source != "policy": print(choice.reason, choice.detail)

select() returns the policy's algorithm only when an entry has exactly this matmul, the entry holds for this GPU and
cuBLASLt version, the algorithm rebuilds to the attributes the policy states, the buffers meet its alignment and
workspace, and cublasLtMatmulAlgoCheck passes. Otherwise the heuristic's first choice with the reason: "no-entry",
"other-library", "other-gpu", "other-cublaslt-version", "unknown-name", "attributes-disagree", "rebuild-failed",
"alignment", "workspace-too-small", "check-failed", "descriptors-failed". Never a wrong algorithm silently.

Every cuBLASLt call goes through an api object (CublasLt(), the real library, by default); tests pass a scripted
one with the same methods. The same decisions as include/tunescope/cublaslt_policy.hpp.
"""
import ctypes
import ctypes.util
import dataclasses
import json
from typing import List, Optional

FORMAT = "tunescope-cublaslt-policy-v1"

# cublasLt.h (CUDA 13.0 / cuBLAS 13.1) values.
CONFIG_ID, CONFIG_TILE_ID, CONFIG_SPLITK_NUM, CONFIG_REDUCTION_SCHEME = 0, 1, 2, 3
CONFIG_CTA_SWIZZLING, CONFIG_CUSTOM_OPTION, CONFIG_STAGES_ID = 4, 5, 6
CONFIG_INNER_SHAPE_ID, CONFIG_CLUSTER_SHAPE_ID = 7, 8
CAP_MIN_ALIGNMENT = {"A": 16, "B": 17, "C": 18, "D": 19}
# ctypes type of each config attribute (sizes must match cuBLASLt's, or it answers INVALID_VALUE).
CONFIG_CTYPES = {CONFIG_ID: ctypes.c_int32, CONFIG_TILE_ID: ctypes.c_uint32, CONFIG_SPLITK_NUM: ctypes.c_int32,
                 CONFIG_REDUCTION_SCHEME: ctypes.c_uint32, CONFIG_CTA_SWIZZLING: ctypes.c_uint32,
                 CONFIG_CUSTOM_OPTION: ctypes.c_uint32, CONFIG_STAGES_ID: ctypes.c_uint32,
                 CONFIG_INNER_SHAPE_ID: ctypes.c_uint16, CONFIG_CLUSTER_SHAPE_ID: ctypes.c_uint16}

ENUM_NAMES = {
    "CUBLAS_OP_N": 0, "CUBLAS_OP_T": 1, "CUBLASLT_ORDER_COL": 0, "CUBLASLT_ORDER_ROW": 1,
    "CUDA_R_32F": 0, "CUDA_R_64F": 1, "CUDA_R_16F": 2, "CUDA_R_8I": 3, "CUDA_R_32I": 10, "CUDA_R_16BF": 14,
    "CUDA_R_8F_E4M3": 28, "CUDA_R_8F_E5M2": 29, "CUDA_R_4F_E2M1": 33,
    "CUBLAS_COMPUTE_16F": 64, "CUBLAS_COMPUTE_32F": 68, "CUBLAS_COMPUTE_64F": 70, "CUBLAS_COMPUTE_32I": 72,
    "CUBLAS_COMPUTE_32F_FAST_16F": 74, "CUBLAS_COMPUTE_32F_FAST_16BF": 75, "CUBLAS_COMPUTE_32F_FAST_TF32": 77,
    "CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F": 0, "CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3": 1,
    "CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0": 2, "CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F": 3,
    "CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F": 4, "CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F": 5,
    "CUBLASLT_EPILOGUE_DEFAULT": 1, "CUBLASLT_EPILOGUE_RELU": 2, "CUBLASLT_EPILOGUE_BIAS": 4,
    "CUBLASLT_EPILOGUE_RELU_BIAS": 6, "CUBLASLT_EPILOGUE_GELU": 32, "CUBLASLT_EPILOGUE_GELU_BIAS": 36,
    "CUBLASLT_POINTER_MODE_HOST": 0, "CUBLASLT_POINTER_MODE_DEVICE": 1,
}
STATUS_NAMES = {0: "CUBLAS_STATUS_SUCCESS", 1: "CUBLAS_STATUS_NOT_INITIALIZED", 3: "CUBLAS_STATUS_ALLOC_FAILED",
                7: "CUBLAS_STATUS_INVALID_VALUE", 8: "CUBLAS_STATUS_ARCH_MISMATCH", 13: "CUBLAS_STATUS_EXECUTION_FAILED",
                14: "CUBLAS_STATUS_INTERNAL_ERROR", 15: "CUBLAS_STATUS_NOT_SUPPORTED"}
_KEY_FIELDS = ("m", "n", "k", "batch_count", "transa", "transb", "order", "lda", "ldb", "ldc", "ldd", "a_type",
               "b_type", "c_type", "d_type", "compute_type", "scale_type", "a_scale_mode", "b_scale_mode",
               "epilogue", "bias_type", "pointer_mode")


def status_name(status):
    return STATUS_NAMES.get(status, "cuBLAS status %d" % status)


class PolicyError(ValueError):
    """A policy file that cannot be read: names the file and the JSON Pointer."""

    def __init__(self, file, pointer, message):
        super().__init__("%s%s: %s" % (file, ": at " + pointer if pointer else "", message))
        self.file, self.pointer = file, pointer


@dataclasses.dataclass
class Matmul:
    """The matmul as cuBLASLt sees it, in cuBLASLt's values, plus what your buffers offer."""
    m: int = 0
    n: int = 0
    k: int = 0
    batch_count: int = 1
    transa: int = 0
    transb: int = 0
    order: int = 0
    lda: int = 0
    ldb: int = 0
    ldc: int = 0
    ldd: int = 0
    a_type: int = 14
    b_type: int = 14
    c_type: int = 14
    d_type: int = 14
    compute_type: int = 68
    scale_type: int = 0
    a_scale_mode: int = 0
    b_scale_mode: int = 0
    epilogue: int = 1
    bias_type: int = -1
    pointer_mode: int = 0
    alignment: tuple = (256, 256, 256, 256)  # A, B, C, D: of your buffers
    workspace_bytes: int = 0

    def key(self):
        return tuple(getattr(self, f) for f in _KEY_FIELDS)

    @staticmethod
    def row_major(M, N, K, layout="TN", dtype="bf16", workspace_bytes=0):
        """Y[M,N] = op(X) op(W) in the explorer's terms (docs/explorer.md): cuBLASLt's m, n, k = N, M, K."""
        lda, ldb = {"TN": (K, K), "NN": (N, K), "NT": (N, M)}[layout]
        types = {"bf16": 14, "fp8": 28, "fp8e4m3": 28, "nvfp4": 33}[dtype]
        scale = 1 if dtype == "nvfp4" else 0
        return Matmul(m=N, n=M, k=K, transa=1 if layout == "TN" else 0, transb=1 if layout == "NT" else 0,
                      lda=lda, ldb=ldb, ldc=N, ldd=N, a_type=types, b_type=types, a_scale_mode=scale,
                      b_scale_mode=scale, workspace_bytes=workspace_bytes)


@dataclasses.dataclass
class Entry:
    library: str
    matmul: Optional[Matmul]  # None: it names a value this loader does not know
    unknown_name: str
    data: Optional[List[int]]  # the 8 data words, or None (rebuild from the attributes)
    attributes: dict           # CUBLASLT_ALGO_CONFIG_* by attribute id; inner/cluster absent when unset
    gpu: str
    architecture: str
    cublaslt_version: Optional[int]
    gain_percent: float
    pointer: str


@dataclasses.dataclass
class Choice:
    source: str = "none"   # "policy", "heuristic", or "none" (no algorithm: do not run)
    algo: Optional[List[int]] = None
    workspace: int = 0
    waves: float = 0.0
    reason: str = "policy"
    detail: str = ""
    entry: int = -1

    @property
    def ok(self):
        return self.source != "none"

    def cublaslt_algo(self):
        """A ctypes cublasLtMatmulAlgo_t to pass to cublasLtMatmul."""
        return (ctypes.c_uint64 * 8)(*self.algo)


class _Reader:
    def __init__(self, file):
        self.file = file

    def fail(self, at, why):
        raise PolicyError(self.file, at, why)

    def member(self, obj, at, key, kind=None):
        if not isinstance(obj, dict):
            self.fail(at, "expected an object")
        if key not in obj:
            self.fail(at + "/" + key, "missing")
        value = obj[key]
        if kind is int and (not isinstance(value, int) or isinstance(value, bool)):
            self.fail(at + "/" + key, "expected an integer")
        if kind is str and not isinstance(value, str):
            self.fail(at + "/" + key, "expected a string")
        return value

    def matmul(self, v, at):
        values, unknown = {}, ""
        for f in _KEY_FIELDS:
            if f == "bias_type" and (f not in v or v[f] is None):
                values[f] = -1
            elif f in ("m", "n", "k", "batch_count", "lda", "ldb", "ldc", "ldd"):
                values[f] = self.member(v, at, f, int)
            else:
                name = self.member(v, at, f, str)
                if name not in ENUM_NAMES and not unknown:
                    unknown = name
                values[f] = ENUM_NAMES.get(name, -1)
        values["workspace_bytes"] = self.member(v, at, "workspace_limit_bytes", int)
        return (None if unknown else Matmul(**values)), unknown

    def data_words(self, algo, at):
        if algo.get("data_words") is None:
            return None
        words = algo["data_words"]
        if not isinstance(words, list) or len(words) != 8:
            self.fail(at + "/data_words", "expected 8 data words")
        out = []
        for i, w in enumerate(words):
            if not (isinstance(w, str) and len(w) == 18 and w[:2] in ("0x", "0X")) or any(
                    c not in "0123456789abcdefABCDEF" for c in w[2:]):
                self.fail("%s/data_words/%d" % (at, i), "%r is not \"0x\" + 16 hex digits" % (w,))
            out.append(int(w[2:], 16))
        return out

    def attributes(self, v, at):
        ids = {"algo_id": CONFIG_ID, "tile_id": CONFIG_TILE_ID, "stages_id": CONFIG_STAGES_ID,
               "split_k": CONFIG_SPLITK_NUM, "reduction_scheme": CONFIG_REDUCTION_SCHEME,
               "cta_swizzle": CONFIG_CTA_SWIZZLING, "custom_option": CONFIG_CUSTOM_OPTION}
        out = {attr: self.member(v, at, name, int) for name, attr in ids.items()}
        for name, attr in (("inner_shape_id", CONFIG_INNER_SHAPE_ID), ("cluster_shape_id", CONFIG_CLUSTER_SHAPE_ID)):
            if v.get(name) is not None:
                out[attr] = self.member(v, at, name, int)
        return out

    def entry(self, v, at):
        library = self.member(v, at, "library", str)
        matmul, unknown = self.matmul(self.member(v, at, "matmul"), at + "/matmul")
        env = self.member(v, at, "environment")
        version = env.get("cublaslt_version") if isinstance(env, dict) else None
        if version is not None and (not isinstance(version, int) or isinstance(version, bool)):
            self.fail(at + "/environment/cublaslt_version", "expected an integer")
        gain = self.member(v, at, "gain")
        percent = gain.get("percent", 0.0) if isinstance(gain, dict) else 0.0
        data, attributes = None, {}
        if library == "cublaslt":
            algo = self.member(v, at, "algo")
            data = self.data_words(algo, at + "/algo")
            attributes = self.attributes(self.member(algo, at + "/algo", "attributes"), at + "/algo/attributes")
        return Entry(library, matmul, unknown, data, attributes, self.member(env, at + "/environment", "gpu", str),
                     self.member(env, at + "/environment", "architecture", str), version,
                     float(percent) if isinstance(percent, (int, float)) else 0.0, at)


class Policy:
    def __init__(self, entries):
        self.entries = entries

    @staticmethod
    def from_json(document, file="policy"):
        r = _Reader(file)
        if r.member(document, "", "format", str) != FORMAT:
            r.fail("/format", "not a TuneScope cuBLASLt policy (expected %r)" % FORMAT)
        entries = r.member(document, "", "entries")
        if not isinstance(entries, list):
            r.fail("/entries", "expected an array")
        return Policy([r.entry(e, "/entries/%d" % i) for i, e in enumerate(entries)])

    @staticmethod
    def from_file(path):
        try:
            with open(path, "rb") as f:
                document = json.loads(f.read().decode("utf-8"))
        except OSError as e:
            raise PolicyError(str(path), "", "cannot be read: %s" % e) from e
        except ValueError as e:
            raise PolicyError(str(path), "", "not JSON: %s" % e) from e
        return Policy.from_json(document, str(path))

    def select(self, matmul, handle=None, descriptors=None, api=None):
        """The algorithm for `matmul` (see the module's docstring). `descriptors`: yours, or None to make them."""
        api = api or default_api()
        own_handle = handle is None
        if own_handle:
            try:
                handle = api.create_handle()
            except RuntimeError as e:  # no GPU, no driver: no algorithm at all
                return Choice(reason="descriptors-failed", detail=str(e))
        own = descriptors is None
        try:
            if own:
                status, descriptors = api.create_descriptors(matmul)
                if status != 0:
                    return Choice(reason="descriptors-failed",
                                  detail="could not make cuBLASLt descriptors: " + status_name(status))
            choice = self._decide(matmul, api)
            if choice.reason == "policy":
                choice = self._policy_algo(handle, matmul, descriptors, api, choice.entry)
                if choice.ok:
                    return choice
            return self._heuristic(handle, matmul, descriptors, api, choice)
        finally:
            if own and descriptors is not None:
                api.destroy_descriptors(descriptors)
            if own_handle:
                api.destroy_handle(handle)

    def _decide(self, matmul, api):
        same, other_library = [], False
        for i, e in enumerate(self.entries):
            if e.matmul is None or e.matmul.key() != matmul.key():
                continue
            if e.library != "cublaslt":
                other_library = True
            else:
                same.append(i)
        if not same:
            return Choice(reason="other-library" if other_library else "no-entry",
                          detail=("only a hipBLASLt entry has " if other_library else "no entry has ") +
                          describe(matmul))
        status, name, major, minor = api.device()
        arch = "sm_%d%d" % (major, minor)
        version = api.version()
        same_gpu = False
        for i in same:
            e = self.entries[i]
            if status != 0 or e.gpu != name or e.architecture != arch:
                continue
            same_gpu = True
            if e.cublaslt_version == version:
                return Choice(entry=i)
        first = self.entries[same[0]]
        if same_gpu:
            return Choice(entry=same[0], reason="other-cublaslt-version",
                          detail="the policy's entries for %s hold for cuBLASLt %s, this is %d" %
                          (name, first.cublaslt_version, version))
        return Choice(entry=same[0], reason="other-gpu",
                      detail="the policy's entries for this matmul hold for %s (%s), this is %s" %
                      (first.gpu, first.architecture, "an unknown device" if status else "%s (%s)" % (name, arch)))

    def _policy_algo(self, handle, matmul, descriptors, api, index):
        e = self.entries[index]

        def refused(reason, detail):
            return Choice(entry=index, reason=reason, detail=e.pointer + ": " + detail)

        if e.data is not None:
            algo = list(e.data)
            for attr, want in e.attributes.items():
                status, got = api.config_get(algo, attr, CONFIG_CTYPES[attr])
                if status != 0 or got != want:
                    return refused("attributes-disagree", "the data words decode to attribute %d = %s, the policy "
                                   "says %d" % (attr, got if status == 0 else status_name(status), want))
        else:
            status, algo = api.algo_init(handle, matmul, e.attributes[CONFIG_ID])
            if status != 0:
                return refused("rebuild-failed", "cublasLtMatmulAlgoInit(%d): %s" %
                               (e.attributes[CONFIG_ID], status_name(status)))
            for attr, value in e.attributes.items():
                if attr == CONFIG_ID:
                    continue
                status = api.config_set(algo, attr, value, CONFIG_CTYPES[attr])
                if status != 0:
                    return refused("rebuild-failed", "ConfigSetAttribute(%d): %s" % (attr, status_name(status)))
        for (which, cap), offered in zip(CAP_MIN_ALIGNMENT.items(), matmul.alignment):
            status, needed = api.cap_get(algo, cap)
            if status == 0 and offered < needed:
                return refused("alignment", "the algorithm needs %d-byte aligned %s, the buffers are %d-byte aligned"
                               % (needed, which, offered))
        status, workspace, waves = api.algo_check(handle, descriptors, algo)
        if status != 0:
            return refused("check-failed", "cublasLtMatmulAlgoCheck: " + status_name(status))
        if workspace > matmul.workspace_bytes:
            return refused("workspace-too-small", "the algorithm needs %d bytes of workspace, %d are offered" %
                           (workspace, matmul.workspace_bytes))
        return Choice(source="policy", algo=algo, workspace=workspace, waves=waves, entry=index,
                      detail="%s: the policy's algorithm (%.2f%% when measured)" % (e.pointer, e.gain_percent))

    @staticmethod
    def _heuristic(handle, matmul, descriptors, api, why):
        status, algo, workspace, waves = api.heuristic_first(handle, descriptors, matmul)
        if status != 0:
            why.source = "none"
            why.detail += ("; " if why.detail else "") + "and cublasLtMatmulAlgoGetHeuristic gave no algorithm: " + \
                status_name(status)
            return why
        why.source, why.algo, why.workspace, why.waves = "heuristic", list(algo), workspace, waves
        return why


def describe(mm):
    return "m=%d n=%d k=%d batch=%d op %s/%s types %d,%d->%d,%d compute %d" % (
        mm.m, mm.n, mm.k, mm.batch_count, "T" if mm.transa else "N", "T" if mm.transb else "N", mm.a_type,
        mm.b_type, mm.c_type, mm.d_type, mm.compute_type)


# ---------------------------------------------------------------------------------------------------------------
# Real cuBLASLt through ctypes
# ---------------------------------------------------------------------------------------------------------------

class _HeuristicResult(ctypes.Structure):
    # cublasLtMatmulHeuristicResult_t: {cublasLtMatmulAlgo_t algo; size_t workspaceSize; cublasStatus_t state;
    # float wavesCount; int reserved[4];}
    _fields_ = [("algo", ctypes.c_uint64 * 8), ("workspaceSize", ctypes.c_size_t), ("state", ctypes.c_int),
                ("wavesCount", ctypes.c_float), ("reserved", ctypes.c_int * 4)]


def _load(names):
    for name in names:
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    raise OSError("none of %s could be loaded (is the CUDA toolkit's lib64 on LD_LIBRARY_PATH?)" % ", ".join(names))


class CublasLt:
    """The real library. Descriptors are (op, A, B, C, D) handles made with cublasLtMatmulDescCreate and
    cublasLtMatrixLayoutCreate (packed strides when batch_count > 1, no scale pointers)."""

    def __init__(self):
        found = ctypes.util.find_library("cublasLt")
        self.lt = _load([n for n in (found, "libcublasLt.so", "libcublasLt.so.13", "libcublasLt.so.12") if n])
        self.cuda = None  # the driver (for the device's name), loaded when asked: a machine without one has no GPU
        found = ctypes.util.find_library("cudart")
        self.rt = _load([n for n in (found, "libcudart.so", "libcudart.so.13", "libcudart.so.12") if n])
        self.lt.cublasLtGetVersion.restype = ctypes.c_size_t
        self.lt.cublasLtMatrixLayoutCreate.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_int,
                                                       ctypes.c_uint64, ctypes.c_uint64, ctypes.c_int64]
        self.lt.cublasLtMatmulDescCreate.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_int, ctypes.c_int]
        for f in ("cublasLtMatmulDescSetAttribute", "cublasLtMatrixLayoutSetAttribute",
                  "cublasLtMatmulPreferenceSetAttribute"):
            getattr(self.lt, f).argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t]
        for f in ("cublasLtMatmulDescDestroy", "cublasLtMatrixLayoutDestroy", "cublasLtMatmulPreferenceDestroy",
                  "cublasLtDestroy"):
            getattr(self.lt, f).argtypes = [ctypes.c_void_p]

    def version(self):
        return int(self.lt.cublasLtGetVersion())

    def device(self):
        if self.cuda is None:
            try:
                self.cuda = _load(["libcuda.so.1", "libcuda.so"])
            except OSError:
                return 1, "", 0, 0
        ordinal, dev = ctypes.c_int(0), ctypes.c_int(0)
        major, minor = ctypes.c_int(0), ctypes.c_int(0)
        name = ctypes.create_string_buffer(256)
        status = (self.rt.cudaGetDevice(ctypes.byref(ordinal)) or self.cuda.cuInit(0) or
                  self.cuda.cuDeviceGet(ctypes.byref(dev), ordinal) or
                  self.cuda.cuDeviceGetName(name, 256, dev) or
                  self.rt.cudaDeviceGetAttribute(ctypes.byref(major), 75, ordinal) or
                  self.rt.cudaDeviceGetAttribute(ctypes.byref(minor), 76, ordinal))
        return status, name.value.decode(), major.value, minor.value

    def create_handle(self):
        handle = ctypes.c_void_p()
        status = self.lt.cublasLtCreate(ctypes.byref(handle))
        if status != 0:
            raise RuntimeError("cublasLtCreate: " + status_name(status))
        return handle

    def destroy_handle(self, handle):
        self.lt.cublasLtDestroy(handle)

    def _set(self, setter, obj, attr, value, ctype):
        v = ctype(value)
        return setter(obj, attr, ctypes.byref(v), ctypes.sizeof(v))

    def _layout(self, type_, rows, cols, ld, mm):
        layout = ctypes.c_void_p()
        status = self.lt.cublasLtMatrixLayoutCreate(ctypes.byref(layout), type_, rows, cols, ld)
        if status == 0 and mm.order != 0:
            status = self._set(self.lt.cublasLtMatrixLayoutSetAttribute, layout, 1, mm.order, ctypes.c_int32)
        if status == 0 and mm.batch_count > 1:
            status = (self._set(self.lt.cublasLtMatrixLayoutSetAttribute, layout, 5, mm.batch_count, ctypes.c_int32)
                      or self._set(self.lt.cublasLtMatrixLayoutSetAttribute, layout, 6,
                                   ld * (cols if mm.order == 0 else rows), ctypes.c_int64))
        return status, layout

    def create_descriptors(self, mm):
        op = ctypes.c_void_p()
        status = self.lt.cublasLtMatmulDescCreate(ctypes.byref(op), mm.compute_type, mm.scale_type)
        if status != 0:
            return status, None
        d = [op]
        set_desc = self.lt.cublasLtMatmulDescSetAttribute
        # CUBLASLT_MATMUL_DESC_TRANSA 3, TRANSB 4, EPILOGUE 7, POINTER_MODE 2, BIAS_DATA_TYPE 26, A/B_SCALE_MODE 31/32
        steps = [(3, mm.transa, ctypes.c_int32), (4, mm.transb, ctypes.c_int32)]
        if mm.epilogue != 1:
            steps.append((7, mm.epilogue, ctypes.c_uint32))
        if mm.bias_type >= 0:
            steps.append((26, mm.bias_type, ctypes.c_int32))
        if mm.pointer_mode != 0:
            steps.append((2, mm.pointer_mode, ctypes.c_int32))
        if mm.a_scale_mode != 0:
            steps.append((31, mm.a_scale_mode, ctypes.c_int32))
        if mm.b_scale_mode != 0:
            steps.append((32, mm.b_scale_mode, ctypes.c_int32))
        for attr, value, ctype in steps:
            status = status or self._set(set_desc, op, attr, value, ctype)
        ta, tb = mm.transa != 0, mm.transb != 0
        for type_, rows, cols, ld in ((mm.a_type, mm.k if ta else mm.m, mm.m if ta else mm.k, mm.lda),
                                      (mm.b_type, mm.n if tb else mm.k, mm.k if tb else mm.n, mm.ldb),
                                      (mm.c_type, mm.m, mm.n, mm.ldc), (mm.d_type, mm.m, mm.n, mm.ldd)):
            if status == 0:
                status, layout = self._layout(type_, rows, cols, ld, mm)
                d.append(layout)
        if status != 0:
            self.destroy_descriptors(d)
            return status, None
        return 0, d

    def destroy_descriptors(self, d):
        if d and d[0]:
            self.lt.cublasLtMatmulDescDestroy(d[0])
        for layout in d[1:]:
            if layout:
                self.lt.cublasLtMatrixLayoutDestroy(layout)

    def algo_init(self, handle, mm, algo_id):
        algo = (ctypes.c_uint64 * 8)()
        status = self.lt.cublasLtMatmulAlgoInit(handle, mm.compute_type, mm.scale_type, mm.a_type, mm.b_type,
                                                mm.c_type, mm.d_type, algo_id, ctypes.byref(algo))
        return status, list(algo)

    def config_set(self, algo, attr, value, ctype):
        a = (ctypes.c_uint64 * 8)(*algo)
        v = ctype(value)
        status = self.lt.cublasLtMatmulAlgoConfigSetAttribute(ctypes.byref(a), attr, ctypes.byref(v),
                                                              ctypes.c_size_t(ctypes.sizeof(v)))
        algo[:] = list(a)
        return status

    def config_get(self, algo, attr, ctype):
        a = (ctypes.c_uint64 * 8)(*algo)
        v, written = ctype(0), ctypes.c_size_t(0)
        status = self.lt.cublasLtMatmulAlgoConfigGetAttribute(ctypes.byref(a), attr, ctypes.byref(v),
                                                              ctypes.c_size_t(ctypes.sizeof(v)), ctypes.byref(written))
        return status, v.value

    def cap_get(self, algo, cap):
        a = (ctypes.c_uint64 * 8)(*algo)
        v, written = ctypes.c_uint32(0), ctypes.c_size_t(0)
        status = self.lt.cublasLtMatmulAlgoCapGetAttribute(ctypes.byref(a), cap, ctypes.byref(v),
                                                           ctypes.c_size_t(4), ctypes.byref(written))
        return status, v.value

    def algo_check(self, handle, d, algo):
        a = (ctypes.c_uint64 * 8)(*algo)
        result = _HeuristicResult()
        status = self.lt.cublasLtMatmulAlgoCheck(handle, d[0], d[1], d[2], d[3], d[4], ctypes.byref(a),
                                                 ctypes.byref(result))
        return status, int(result.workspaceSize), float(result.wavesCount)

    def heuristic_first(self, handle, d, mm):
        pref = ctypes.c_void_p()
        status = self.lt.cublasLtMatmulPreferenceCreate(ctypes.byref(pref))
        if status != 0:
            return status, None, 0, 0.0
        set_pref = self.lt.cublasLtMatmulPreferenceSetAttribute
        # CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES 1 (uint64), MIN_ALIGNMENT_A..D_BYTES 5..8 (uint32)
        status = self._set(set_pref, pref, 1, mm.workspace_bytes, ctypes.c_uint64)
        for attr, value in zip((5, 6, 7, 8), mm.alignment):
            status = status or self._set(set_pref, pref, attr, value, ctypes.c_uint32)
        result, returned = _HeuristicResult(), ctypes.c_int(0)
        if status == 0:
            status = self.lt.cublasLtMatmulAlgoGetHeuristic(handle, d[0], d[1], d[2], d[3], d[4], pref, 1,
                                                            ctypes.byref(result), ctypes.byref(returned))
        self.lt.cublasLtMatmulPreferenceDestroy(pref)
        if status == 0 and returned.value < 1:
            status = 15
        if status == 0 and result.state != 0:
            status = result.state
        if status != 0:
            return status, None, 0, 0.0
        return 0, list(result.algo), int(result.workspaceSize), float(result.wavesCount)


_default = None


def default_api():
    global _default
    if _default is None:
        _default = CublasLt()
    return _default
