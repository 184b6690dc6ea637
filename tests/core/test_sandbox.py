"""Escape attempts against the restricted runner: each is refused, and nothing is written.

Every attempt runs in a workspace that holds a tensor ``x``, an array ``a``, a module ``model``,
a generator ``gen`` and the path of a canary file (``path``) plus a path where no file exists
yet (``newpath``). After each attempt the canary must be intact and no file may have appeared.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

import tensor_explorer as tx
from tensor_explorer.core import sandbox
from tensor_explorer.core.catalog import Message

CANARY = "canary: untouched\n"

ESCAPES: dict[str, str] = {
    # --- imports ---
    "import-os": "import os\nos.system('touch ' + newpath)",
    "import-subprocess": "import subprocess",
    "from-os": "from os import system",
    "import-serialization": "import torch.serialization",
    "import-numpy-lib": "import numpy.lib",
    "import-relative": "from . import x",
    "from-torch-save": "from torch import save\nsave(x, path)",
    "from-numpy-save": "from numpy import save",
    "from-nn-modules": "from torch.nn import modules",
    "import-star": "from torch import *",
    # --- direct file / process / native entry points ---
    "torch-save": "torch.save(x, path)",
    "torch-load": "y = torch.load(path)",
    "np-save": "np.save(newpath, a)",
    "np-savetxt": "np.savetxt(path, a)",
    "np-load": "y = np.load(path, allow_pickle=True)",
    "np-loadtxt": "y = np.loadtxt(path)",
    "np-genfromtxt": "y = np.genfromtxt(path)",
    "np-fromfile": "y = np.fromfile(path)",
    "np-memmap": "m = np.memmap(newpath, mode='w+', shape=(4,))",
    "np-datasource": "d = np.DataSource()",
    "np-lib-format": "np.lib.format.open_memmap(newpath, mode='w+', shape=(2,))",
    "np-ctypeslib": "np.ctypeslib.load_library('libc', '/lib')",
    "np-testing": "np.testing.assert_equal(1, 1)",
    "torch-from-file": "y = torch.from_file(newpath, shared=True, size=4)",
    "untyped-storage-from-file": "torch.UntypedStorage.from_file(newpath, True, 4)",
    "storage-instance-from-file": "x.untyped_storage().from_file(newpath, True, 4)",
    "torch-hub": "torch.hub.load('someone/repo', 'model')",
    "torch-jit": "torch.jit.save(torch.jit.script(model), path)",
    "torch-ops-load-library": "torch.ops.load_library(path)",
    "torch-classes": "torch.classes.load_library(path)",
    "torch-utils-cpp-extension": "torch.utils.cpp_extension.load_inline('m', '')",
    "torch-multiprocessing": "p = torch.multiprocessing.Process(target=print)",
    "torch-distributed": "torch.distributed.init_process_group('gloo')",
    "torch-compile": "f = torch.compile(lambda t: t + 1)",
    "torch-profiler": "p = torch.profiler.profile()",
    "torch-autograd-profiler": "p = torch.autograd.profiler.profile()",
    "torch-backends": "torch.backends.cudnn.deterministic = True",
    "torch-testing": "torch.testing.assert_close(x, x)",
    "torch-package": "torch.package.PackageExporter(newpath)",
    "torch-onnx": "torch.onnx.export(model, x, newpath)",
    "torch-private-C": "torch._C",
    "torch-get-device-module": "m = torch.get_device_module()",
    "torch-set-default-device": "torch.set_default_device('meta')",
    "dataloader-workers": (
        "ds = torch.utils.data.TensorDataset(x)\n"
        "dl = torch.utils.data.DataLoader(ds, num_workers=2)"
    ),
    "dataloader-workers-later": (
        "dl = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x))\n"
        "dl.num_workers = 2\n"
        "batches = list(dl)"
    ),
    "np-set-printoptions": "np.set_printoptions(formatter={'float': lambda v: 'x'})",
    "swallow-refusal": (
        "fmt = '{0.' + '_' + '_class__}'\n"
        "try:\n"
        "    try:\n"
        "        fmt.format(x)\n"
        "    except BaseException:\n"
        "        pass\n"
        "except Exception:\n"
        "    pass\n"
    ),
    # --- modules re-exported by modules ---
    "torch-os": "torch.os.system('touch ' + newpath)",
    "torch-sys": "torch.sys.modules",
    "torch-functional-os": "torch.functional.os",
    "nn-modules-module-torch": "nn.modules.module.torch.save(x, path)",
    "F-torch": "F.torch.save(x, path)",
    "torch-serialization-save": "torch.serialization.save(x, path)",
    "np-lib-npyio": "np.lib.npyio.save(newpath, a)",
    "np-core-multiarray": "np.core.multiarray",
    # --- aliases ---
    "alias-function": "s = torch.save\ns(x, path)",
    "alias-module": "t = torch\nt.save(x, path)",
    "alias-numpy": "save = np.save\nsave(newpath, a)",
    "alias-in-list": "fs = [np.save]\nfs[0](newpath, a)",
    # --- through attributes of values ---
    "tensor-class": "x.__class__",
    "tensor-private-attribute": "v = x._version",
    "version-of-a-value": "v = x.__version__",
    "version-of-nn": "v = nn.__version__",
    "name-store": "def f():\n    pass\nf.__name__ = 'g'",
    "init-of-a-value": "x.__init__()",
    "init-of-super-alias": "def f(s):\n    return s.__init__\n",
    "from-torch-version": "from torch import __version__",
    "tensor-numpy-tofile": "x.numpy().tofile(path)",
    "array-tofile": "a.tofile(path)",
    "array-dump": "a.dump(path)",
    "array-dumps": "b = a.dumps()",
    "array-ctypes": "p = a.ctypes.data",
    "bitgenerator-cffi": "c = np.random.default_rng().bit_generator.cffi",
    "tensor-share-memory": "x.share_memory_()",
    "module-share-memory": "model.share_memory()",
    "module-compile": "model.compile()",
    "grad-fn-class": "y = x * 2\ny.grad_fn.__class__",
    "tuple-subclasses": "().__class__.__base__.__subclasses__()",
    "list-base": "[].__class__.__base__",
    "print-self": "print.__self__",
    "method-globals": "model.forward.__func__.__globals__",
    "lambda-globals": "(lambda: 0).__globals__",
    "def-code": "def f():\n    pass\nf.__code__",
    "generator-frame": "gen.gi_frame.f_globals",
    "generator-code": "c = gen.gi_code",
    "str-mro": "str.mro()",
    "type-mro": "type(x).mro()",
    "type-three-args": "K = type('K', (), {})",
    "type-of-module": "type(torch)",
    "metaclass-of-builtin": "T = type(int)\nK = T('K', (), {})",
    "metaclass-of-tensor": "M = type(type(x))",
    "metaclass-of-guarded-class": "G = type(np.ndarray)",
    "exception-traceback": (
        "try:\n    1 / 0\nexcept Exception as e:\n    f = e.__traceback__.tb_frame"
    ),
    "exception-with-traceback": (
        "try:\n    1 / 0\nexcept Exception as e:\n    e.with_traceback(None)"
    ),
    "ndarray-buffer": "b = np.ndarray((1,), dtype='O', buffer=bytearray(8))",
    "type-ndarray-buffer": "b = type(a)((1,), dtype='O', buffer=bytearray(8))",
    "recarray-buffer": "b = np.recarray((1,), dtype=[('o', 'O')], buf=bytearray(8))",
    "tensor-set-storage": ("y = torch.empty(0)\ny.set_(x.untyped_storage(), 0, (100000,), (1,))"),
    "storage-resize": "x.untyped_storage().resize_(0)",
    # --- getattr-like builtins and friends ---
    "getattr": "getattr(x, '__class__')",
    "setattr": "setattr(x, 'y', 1)",
    "vars": "vars(model)",
    "dir": "dir(x)",
    "globals": "globals()",
    "locals": "locals()",
    "eval": "eval('1 + 1')",
    "exec": "exec('import os')",
    "compile": "compile('1', 'f', 'eval')",
    "open": "open(path, 'w').write('x')",
    "dunder-import": "__import__('os')",
    "builtins-name": "__builtins__",
    "breakpoint": "breakpoint()",
    "help": "help(x)",
    "input": "input()",
    "exit": "exit()",
    "object": "o = object",
    "super": "super()",
    # --- format strings ---
    "format-class": "'{0.__class__}'.format(x)",
    "format-deep": "'{0.__class__.__base__}'.format(x)",
    "format-map": "'{v.__init__.__globals__}'.format_map({'v': x})",
    "format-unbound": "str.format('{0.__class__}', x)",
    "format-alias": "f = '{0.__class__}'.format\nf(x)",
    "format-built-at-runtime": "fmt = '{0.' + '_' + '_class__}'\nfmt.format(x)",
    "format-generator-frame": "'{0.gi_frame}'.format(gen)",
    "format-numpy-str": "np.str_('{0.__class__}').format(x)",
    # --- comprehension / lambda / function scopes ---
    "comprehension-dunder": "[c.__class__ for c in [x]]",
    "comprehension-save": "fs = [torch.save for i in range(1)]",
    "lambda-save": "(lambda: torch.save)()(x, path)",
    "map-lambda": "list(map(lambda m: m.save, [np]))",
    "nested-def": (
        "def f():\n    def g():\n        return torch.save\n    return g()\nf()(x, path)"
    ),
    "genexpr-frame": "next(g.gi_frame for g in [gen])",
    "default-arg": "def f(s=torch.save):\n    return s\n",
    # --- language features that are refused ---
    "global": "def f():\n    global x\n    x = 1",
    "nonlocal": "def f():\n    y = 1\n    def g():\n        nonlocal y\n    return g",
    "yield": "def f():\n    yield torch",
    "async": "async def f():\n    pass",
    "match": "match x:\n    case _:\n        pass",
    "dunder-name": "__x = 1",
    "dunder-loop-target": "for __i in range(2):\n    pass",
    "dunder-argument": "def f(__a):\n    return __a",
    "dunder-function": "def __f():\n    pass",
    "dunder-special-outside-class": "def __init__(self):\n    pass",
    "dunder-import-alias": "import torch as __t",
    "underscore-kwarg": "torch.ones(2, _x=1)",
    "underscore-from-import": "from torch import _C",
    # --- changing shared classes and modules ---
    "patch-class": "torch.Tensor.add = None",
    "patch-nn-class": "nn.Linear.forward = lambda self, t: t",
    "patch-proxy": "torch.save = print",
    "patch-array-data": "a.data = bytearray(8)",
    "patch-array-strides": "a.strides = (0,)",
    "patch-function": "def f():\n    pass\nf.x = 1",
}


@pytest.fixture
def arena(tmp_path: Path) -> tuple[tx.Workspace, Path]:
    canary = tmp_path / "canary.txt"
    canary.write_text(CANARY)
    ws = tx.Workspace(restricted=True)
    ws["path"] = str(canary)
    ws["newpath"] = str(tmp_path / "new.bin")
    ws["x"] = torch.arange(4.0)
    ws["a"] = np.arange(4.0)
    ws["model"] = torch.nn.Linear(2, 2)
    ws.run("gen = (i for i in range(3))")
    return ws, tmp_path


def test_there_are_at_least_forty_escapes() -> None:
    assert len(ESCAPES) >= 40


@pytest.mark.parametrize("source", list(ESCAPES.values()), ids=list(ESCAPES))
def test_escape_is_refused_and_nothing_is_written(
    arena: tuple[tx.Workspace, Path], source: str
) -> None:
    ws, folder = arena
    before = {name: ws[name] for name in ws.names()}
    with pytest.raises(tx.ProgramError) as info:
        ws.run(source)
    err = info.value
    assert err.kind in ("refused", "not-available"), str(err)
    assert err.line is not None
    assert sorted(p.name for p in folder.iterdir()) == ["canary.txt"]
    assert (folder / "canary.txt").read_text() == CANARY
    # the workspace keeps exactly what it had (a refused program leaves no partial bindings
    # except statements that ran before a refusal at run time, which bind plain values only)
    for name, value in before.items():
        assert ws[name] is value
    # torch and the class objects it exposes are unchanged
    assert torch.Tensor.add is not None and torch.nn.Linear.forward is not None


def test_refusals_found_statically_run_nothing(arena: tuple[tx.Workspace, Path]) -> None:
    ws, _ = arena
    with pytest.raises(tx.ProgramError) as info:
        ws.run("y = 1\nz = 2\nimport os")
    assert info.value.kind == "refused"
    assert info.value.line == 3
    assert "y" not in ws and "z" not in ws


def test_refusal_at_run_time_keeps_earlier_statements(arena: tuple[tx.Workspace, Path]) -> None:
    ws, _ = arena
    with pytest.raises(tx.ProgramError) as info:
        ws.run("y = 1\nfmt = '{0.' + '_' + '_class__}'\nz = fmt.format(x)")
    assert info.value.kind == "refused"
    assert info.value.line == 3
    assert ws["y"] == 1 and "z" not in ws


def test_program_cannot_catch_a_refusal(arena: tuple[tx.Workspace, Path]) -> None:
    ws, _ = arena
    source = (
        "caught = []\n"
        "for name in ['save', 'load', 'from_file']:\n"
        "    try:\n"
        "        f = torch.__getattribute__\n"
        "    except:\n"
        "        caught.append(name)\n"
    )
    with pytest.raises(tx.ProgramError):
        ws.run(source)
    runtime = (
        "caught = []\n"
        "try:\n"
        "    y = x.numpy()\n"
        "    '{0.__class__}'.format(y)\n"
        "except:\n"
        "    caught.append(1)\n"
        "done = True\n"
    )
    with pytest.raises(tx.ProgramError) as info:
        ws.run(runtime)
    assert info.value.kind == "refused"
    assert "done" not in ws
    assert ws["caught"] == []


def test_refusal_message_says_what_and_why(arena: tuple[tx.Workspace, Path]) -> None:
    ws, _ = arena
    with pytest.raises(tx.ProgramError) as info:
        ws.run("y = x + 1\ntorch.save(x, path)")
    text = str(info.value)
    assert text.startswith("Line 2: torch.save(x, path)")
    assert "'save' is not available" in text
    assert "files" in text
    assert "trust this lesson or program to run it as full Python" in text


def test_removed_builtins_are_explained(arena: tuple[tx.Workspace, Path]) -> None:
    ws, _ = arena
    with pytest.raises(tx.ProgramError) as info:
        ws.run("f = open(path)")
    assert info.value.kind == "not-available"
    assert "open() is not available" in str(info.value)


def test_safe_relatives_of_refused_things_still_work(arena: tuple[tx.Workspace, Path]) -> None:
    ws, _ = arena
    ws.run(
        "s = '{} {:.3f} {x}'.format('loss', 0.12345, x=2)\n"
        "t = '{0[1]}'.format([1, 2])\n"
        "m = '{k}'.format_map({'k': 'v'})\n"
        "h = hasattr(x, '__class__')\n"
        "k = type(x)\n"
        "is_array = isinstance(a, np.ndarray) and isinstance(a, type(a))\n"
        "state = model.state_dict()\n"
        "model.load_state_dict(state)\n"
        "ds = torch.utils.data.TensorDataset(x)\n"
        "batches = [b[0].tolist() for b in torch.utils.data.DataLoader(ds, batch_size=2)]\n"
        "nbytes = x.untyped_storage().nbytes()\n"
        "x.requires_grad = True\n"
        "import math\n"
        "r = math.sqrt(4.0)\n"
        "fresh = np.ndarray((2,), dtype=np.float32)\n"
    )
    assert ws["s"] == "loss 0.123 2"
    assert ws["t"] == "2" and ws["m"] == "v"
    assert ws["h"] is False
    assert ws["k"] is torch.Tensor
    assert ws["is_array"] is True
    assert ws["batches"] == [[0.0, 1.0], [2.0, 3.0]]
    assert ws["nbytes"] == 16
    assert ws["x"].requires_grad
    assert ws["r"] == 2.0
    assert ws["fresh"].shape == (2,)


def test_every_proxy_member_is_not_a_module_and_not_denied() -> None:
    import types

    for name in sorted(sandbox.IMPORTABLE):
        proxy = sandbox.module_proxy(name)
        for member in dir(proxy):
            assert sandbox.attr_refusal(member) is None, (name, member)
            value = proxy._tx_get(member)  # what a program gets (np.real: the function)
            assert isinstance(value, sandbox.ModuleProxy) or not isinstance(
                value, types.ModuleType
            ), (name, member)


def test_torch_allowlist_has_the_lesson_functions_and_not_the_dangerous_ones() -> None:
    torch_proxy = sandbox.module_proxy("torch")
    for name in ("tensor", "zeros", "ones_like", "rand", "randn", "arange", "linspace", "eye",
                 "from_numpy", "as_tensor", "no_grad", "inference_mode", "enable_grad",
                 "float32", "long", "device", "Tensor", "isfinite", "sqrt", "manual_seed",
                 "matmul", "cat", "stack", "where", "set_grad_enabled"):  # fmt: skip
        assert name in dir(torch_proxy), name
    for name in ("save", "load", "from_file", "compile", "hub", "jit", "ops", "classes",
                 "library", "os", "sys", "serialization", "multiprocessing", "distributed",
                 "UntypedStorage", "set_default_device", "fork", "CompilationUnit",
                 "import_ir_module", "PyTorchFileWriter", "backends", "profiler"):  # fmt: skip
        assert name not in dir(torch_proxy), name
    numpy_proxy = sandbox.module_proxy("numpy")
    for name in ("save", "load", "fromfile", "memmap", "lib", "ctypeslib", "DataSource",
                 "testing", "savetxt", "genfromtxt", "fromregex"):  # fmt: skip
        assert name not in dir(numpy_proxy), name


def test_unknown_torch_names_are_refused() -> None:
    ws = tx.Workspace(restricted=True)
    with pytest.raises(tx.ProgramError) as info:
        ws.run("y = torch.a_function_torch_does_not_have(1)")
    assert info.value.kind == "refused"


def test_ordinary_tensor_code_still_runs_after_refusals(arena: tuple[tx.Workspace, Path]) -> None:
    ws, _ = arena
    for source in ("torch.save(x, path)", "x.__class__", "import os"):
        with pytest.raises(tx.ProgramError):
            ws.run(source)
    ws.run("w = torch.tensor([[1.0], [2.0]], requires_grad=True)\nloss = (x[:2] @ w).sum()")
    ws.run("loss.backward()")
    assert ws["w"].grad.tolist() == [[0.0], [1.0]]


# ----- what restricted mode accepts ------------------------------------------------------------


def test_single_underscore_names_run_as_in_python() -> None:
    source = (
        "count = 0\n"
        "for _ in range(3):\n"
        "    count += 1\n"
        "values, _ = torch.tensor([3.0, 1.0, 2.0]).sort()\n"
        "zeros = [0 for _ in range(3)]\n"
        "pairs = {_k: _v for _k, _v in [('a', 1)]}\n"
        "_tmp = 1\n"
        "first, *_rest = [1, 2, 3]\n"
        "def _helper(_a, _b=2, *_args, _c=3, **_kw):\n"
        "    _local = _a + _b + _c\n"
        "    return _local\n"
        "h = _helper(1)\n"
        "f = lambda _: _ * 2\n"
        "doubled = f(4)\n"
        "try:\n"
        "    1 / 0\n"
        "except ZeroDivisionError as _e:\n"
        "    caught = True\n"
        "import torch as _t\n"
        "same = _t is torch\n"
        "total = _tmp + count\n"
    )
    ws = tx.Workspace(restricted=True)
    ws.run(source)
    plain: dict[str, object] = {"torch": torch}
    exec(source, plain)  # ground truth: Python itself
    for name in ("count", "zeros", "pairs", "first", "h", "doubled", "caught", "total"):
        assert ws[name] == plain[name], name
    assert ws["values"].tolist() == [1.0, 2.0, 3.0]
    assert ws["same"] is True


def test_read_only_facts() -> None:
    ws = tx.Workspace(restricted=True)
    ws.run(
        "v = torch.__version__\n"
        "nv = np.__version__\n"
        "import numpy\n"
        "nv2 = numpy.__version__\n"
        "x = torch.ones(2)\n"
        "tn = type(x).__name__\n"
        "tq = type(x).__qualname__\n"
        "an = type(np.zeros(2)).__name__\n"
        "def f():\n"
        "    pass\n"
        "fn = f.__name__\n"
        "rn = F.relu.__name__\n"
        "mn = torch.__name__\n"
        "ln = nn.Linear.__name__\n"
        "fmt = '{0.__name__}'.format(type(x))\n"
        "has = hasattr(f, '__name__'), hasattr(x, '__name__'), hasattr(x, '__version__')\n"
        "ok = torch.__version__ >= '2.0'\n"
    )
    assert ws["v"] == torch.__version__ and ws["nv"] == np.__version__ == ws["nv2"]
    assert ws["tn"] == "Tensor" == ws["tq"] and ws["an"] == "ndarray"
    assert ws["fn"] == "f" and ws["rn"] == "relu" and ws["mn"] == "torch"
    assert ws["ln"] == "Linear" and ws["fmt"] == "Tensor"
    assert ws["has"] == (True, False, False)
    assert ws["ok"] is (torch.__version__ >= "2.0")


def test_name_of_a_value_without_one_is_an_attribute_error_as_in_python() -> None:
    ws = tx.Workspace(restricted=True)
    with pytest.raises(tx.ProgramError) as info:
        ws.run("n = torch.ones(2).__name__")
    assert info.value.error_type == "AttributeError"


def test_dunder_names_keep_the_old_refusal() -> None:
    ws = tx.Workspace(restricted=True)
    for source, name in (("__x = 1", "__x"), ("y = __builtins__", "__builtins__"),
                         ("x = torch.ones(1)\nc = x.__class__", "__class__"),
                         ("torch.ones(2, _x=1)", "_x"), ("def f(__a):\n    pass", "__a")):
        with pytest.raises(tx.ProgramError) as info:
            ws.run(source)
        assert info.value.kind == "refused"
        assert f"names that start with '_' are not available ('{name}')" in str(info.value)


def test_refused_constructs_are_named_in_grammatical_english() -> None:
    cases = {
        "def f():\n    global x": "global statements are not available",
        "def f():\n    y = 1\n    def g():\n        nonlocal y\n    return g":
            "nonlocal statements are not available",
        "def f():\n    yield 1": "yield expressions are not available",
        "def f():\n    yield from [1]": "yield from expressions are not available",
        "async def f():\n    pass": "async functions are not available",
        "match 1:\n    case 1:\n        pass": "match statements are not available",
        "try:\n    pass\nexcept* ValueError:\n    pass": "except* clauses are not available",
    }
    ws = tx.Workspace(restricted=True)
    for source, words in cases.items():
        with pytest.raises(tx.ProgramError) as info:
            ws.run(source)
        assert info.value.kind == "refused"
        assert info.value.torch_message == (
            f"{words} in the restricted runner{sandbox.TRUST_HINT}"), source
    assert all(" " in Message(kind) for kind in sandbox._REFUSED_NODES.values())


@pytest.mark.parametrize("source", list(ESCAPES.values()), ids=list(ESCAPES))
def test_every_refusal_says_what_to_do(arena: tuple[tx.Workspace, Path], source: str) -> None:
    ws, _ = arena
    with pytest.raises(tx.ProgramError) as info:
        ws.run(source)
    if info.value.kind == "refused":
        message = info.value.torch_message or ""
        assert message.endswith(sandbox.TRUST_HINT) and message.count(sandbox.TRUST_HINT) == 1


def test_mixed_precision_runs_restricted_and_amp_stays_out() -> None:
    # the course writes torch.autocast: it only chooses the dtype operations compute in
    ws = tx.Workspace(restricted=True)
    ws.run("with torch.autocast(device_type='cpu', dtype=torch.bfloat16):\n"
           "    fast = torch.ones(2, 3) @ torch.ones(3, 2)\n"
           "    inside = torch.is_autocast_enabled('cpu')\n"
           "outside = torch.is_autocast_enabled('cpu')")
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        want = torch.ones(2, 3) @ torch.ones(3, 2)
    assert ws["fast"].dtype == want.dtype == torch.bfloat16 and torch.equal(ws["fast"], want)
    assert (ws["inside"], ws["outside"]) == (True, False)
    for bad in ("a = torch.amp", "a = torch.autocast.__enter__", "a = torch.set_autocast_enabled"):
        with pytest.raises(tx.ProgramError) as info:
            ws.run(bad)
        assert info.value.kind == "refused"
