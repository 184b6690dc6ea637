"""The words of the core's messages, in every language the app speaks: one catalog. Qt-free.

A message the core writes for a person (a refusal of the sandbox, a note of the runner, a
reason a program stopped) is a :class:`Message`: a *code* of :data:`CATALOG` and its
parameters. It is rendered in a language where it is shown (:meth:`Message.render`), so no
text is ever translated back from its English. A :class:`Message` is also a ``str``, its
English text, so everything that reads the English (``str(err)``, the CLI, the tests, code
that compares or formats it) sees exactly what it saw before codes existed.

Why a dict of ``{code: {"en": template, "zh": template}}`` rendered with ``str.format`` and
not gettext (Babel): both languages of a message sit side by side in one reviewable place,
so rewording the English shows its Chinese next to it; a test can check every code has both
languages with the same fields (``tests/core/test_catalog.py``); a code, not the English
text, is the key, so rewording the English cannot orphan its translation; and there is no
extraction step, ``.po``/``.mo`` build or new dependency for ~60 messages. The Qt widgets keep
their own ``tr()`` catalog (``resources/translations``), which Qt Linguist edits.

Parameters: a ``str``/number is put in as it is (a template may write ``{name!r}``); a
list or tuple is joined with the language's list separator (", " / "、"); a nested
:class:`Message` is rendered in the same language; a ``{"en": ..., "zh": ...}`` mapping (a
text some other module already wrote in both languages) gives its own language's text.
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from typing import Any

__all__ = ["CATALOG", "LANGUAGES", "Message", "error_in", "message_of", "render", "text_in"]

LANGUAGES = ("en", "zh")
#: how a list parameter is joined, per language
_LIST_SEP = {"en": ", ", "zh": "、"}

_LIB_BASES_EN = ("torch.nn modules, torch.utils.data datasets, exceptions and classes of "
                 "lessons and programs")
_LIB_BASES_ZH = "torch.nn 模块、torch.utils.data 数据集、异常类，以及课程和程序定义的类"

#: code -> {language: template}
CATALOG: dict[str, dict[str, str]] = {
    # --- what sandbox.py refuses (Refused.text); names and code stay as the program wrote them
    "refused.advised": {
        "en": "{reason}; trust this lesson or program to run it as full Python",
        "zh": "{reason}；信任这个课程或程序即可把它作为完整的 Python 运行",
    },
    "refused.underscore": {
        "en": "names that start with '_' are not available ({name!r})",
        "zh": "以 '_' 开头的名字不可用（{name!r}）",
    },
    "refused.internals": {
        "en": "{name!r} reaches interpreter internals and is not available",
        "zh": "{name!r} 会触及解释器的内部机制，不可用",
    },
    "refused.denied-attr": {
        "en": "{name!r} is not available in the restricted runner "
              "(no file, process or native access)",
        "zh": "{name!r} 在受限运行器里不可用（程序不能访问文件、进程或原生代码）",
    },
    "refused.modules": {
        "en": "modules are not available in the restricted runner",
        "zh": "模块对象在受限运行器里不可用",
    },
    "refused.module-attr": {
        "en": "module attribute {name!r} is not available in the restricted runner",
        "zh": "模块属性 {name!r} 在受限运行器里不可用",
    },
    "refused.module": {
        "en": "module {name!r} is not available in the restricted runner",
        "zh": "模块 {name!r} 在受限运行器里不可用",
    },
    "refused.member": {
        "en": "{owner}.{name} is not available in the restricted runner",
        "zh": "{owner}.{name} 在受限运行器里不可用",
    },
    "refused.raw-buffer": {
        "en": "building an array over a raw buffer ({keyword}=) is not available",
        "zh": "不能在原始内存缓冲区上构建数组（{keyword}=）",
    },
    "refused.dataloader-workers": {
        "en": "DataLoader worker processes are not available: use num_workers=0",
        "zh": "DataLoader 不能使用工作进程：请用 num_workers=0",
    },
    "refused.dataloader-keyword": {
        "en": "DataLoader {key}= is not available",
        "zh": "DataLoader 的 {key}= 参数不可用",
    },
    "refused.dataloader-attr": {
        "en": "DataLoader {name} is not available: no worker processes",
        "zh": "DataLoader 的 {name} 不可用：这里不能使用工作进程",
    },
    "refused.frames": {
        "en": "interpreter frames and code objects are not available",
        "zh": "解释器的栈帧和代码对象不可用",
    },
    "refused.set-module": {
        "en": "modules cannot be changed from a program",
        "zh": "程序不能修改模块",
    },
    "refused.set-class": {
        "en": "classes cannot be changed from a program",
        "zh": "程序不能修改类",
    },
    "refused.set-attr": {
        "en": "attribute {name!r} of this object cannot be set from a program",
        "zh": "程序不能设置这个对象的属性 {name!r}",
    },
    "refused.set-ndarray": {
        "en": "ndarray.{name} cannot be set from a program (only .shape)",
        "zh": "程序不能设置 ndarray.{name}（只能设置 .shape）",
    },
    "refused.hide": {
        "en": "attribute {name!r} would hide {owner}.{name}, which torch and this app rely on",
        "zh": "属性 {name!r} 会遮住 {owner}.{name}（torch 和本应用依赖它）",
    },
    "refused.unbound": {
        "en": "{cls}.{name} runs only on a {cls} (call it on an object of that class)",
        "zh": "{cls}.{name} 只能在 {cls} 对象上运行（请在这个类的对象上调用它）",
    },
    "refused.import": {
        "en": "import of {name!r} is not available",
        "zh": "不能导入 {name!r}",
    },
    "refused.import-only": {
        "en": "import of {name!r} is not available: programs may import only {modules} and "
              "{submodules}",
        "zh": "不能导入 {name!r}：程序只能导入 {modules} 以及 {submodules}",
    },
    "refused.star-import": {
        "en": "'from ... import *' is not available",
        "zh": "不能使用 'from ... import *'",
    },
    "refused.type-three": {
        "en": "type() with three arguments (making classes) is not available",
        "zh": "不能用三个参数调用 type()（那样会创建类）",
    },
    "refused.type-of-class": {
        "en": "the type of a class (its metaclass) is not available",
        "zh": "类的类型（元类）不可用",
    },
    "refused.type-of-module": {
        "en": "the type of a module is not available",
        "zh": "模块的类型不可用",
    },
    "refused.attr-one-at-a-time": {
        "en": "assign or delete attributes one at a time (obj.attr = value)",
        "zh": "请一次只给一个属性赋值或删除一个属性（obj.attr = value）",
    },
    "refused.attr-annotation": {
        "en": "annotations of attributes are not available",
        "zh": "不能给属性加类型注解",
    },
    "refused.class-underscore": {
        "en": "class attributes that start with '_' are not available ({name!r})",
        "zh": "以 '_' 开头的类属性不可用（{name!r}）",
    },
    "refused.special-method": {
        "en": "special method {name!r} is not available (a class may define {allowed})",
        "zh": "特殊方法 {name!r} 不可用（类只能定义 {allowed}）",
    },
    "refused.special-outside-class": {
        "en": "special methods such as {name!r} can be defined only in a class body",
        "zh": "{name!r} 这样的特殊方法只能在类的定义里定义",
    },
    "refused.base": {
        "en": "a class cannot derive from {base!r} in the restricted runner (bases may be "
              + _LIB_BASES_EN + ")",
        "zh": "受限运行器里的类不能继承 {base!r}（基类只能是 " + _LIB_BASES_ZH + "）",
    },
    "refused.redefine": {
        "en": "a class cannot redefine {name!r} of {owner!r} (a subclass of a library class "
              "may redefine only {allowed} and special methods)",
        "zh": "类不能重新定义 {owner!r} 的 {name!r}（库类的子类只能重新定义 {allowed} 和特殊方法）",
    },
    "refused.super-bare": {
        "en": "super() without arguments works only directly inside a method",
        "zh": "不带参数的 super() 只能直接写在方法里",
    },
    "refused.super-form": {
        "en": "super() is available only as super() in a method or as super(Class, obj) with "
              "a class of a lesson or program",
        "zh": "super() 只能写成方法里的 super()，或者 super(Class, obj)，"
              "其中 Class 是课程或程序定义的类",
    },
    "refused.construct": {
        "en": "{construct} are not available in the restricted runner",
        "zh": "{construct}在受限运行器里不可用",
    },
    # memory safety (sandbox_allowlist.py): what could corrupt the app's memory is refused
    "refused.memory-resize": {
        "en": "{owner}.{name} changes the size or the owner of memory that other values may "
              "still use (using them afterwards could crash the app), so it is not available "
              "in the restricted runner",
        "zh": "{owner}.{name} 会改变其他值可能仍在使用的内存的大小或归属"
              "（之后再用这些值可能让应用崩溃），所以在受限运行器里不可用",
    },
    "refused.memory-raw": {
        "en": "{owner}.{name} hands out or changes the raw memory behind a value (or the flags "
              "that protect it), so it is not available in the restricted runner",
        "zh": "{owner}.{name} 会交出或改动一个值背后的原始内存（或保护它的标志），"
              "所以在受限运行器里不可用",
    },
    "refused.memory-unchecked": {
        "en": "{owner}.{name} can write memory without torch's or NumPy's checks (it could "
              "crash the app), so it is not available in the restricted runner",
        "zh": "{owner}.{name} 可能绕过 torch 或 NumPy 的检查写内存（可能让应用崩溃），"
              "所以在受限运行器里不可用",
    },
    "refused.memory-unreviewed": {
        "en": "{owner}.{name} has not been reviewed for memory safety (it is new in this "
              "version of torch or NumPy), so it is not available in the restricted runner",
        "zh": "{owner}.{name} 还没有经过内存安全审查（它是这个版本的 torch 或 NumPy 新增的），"
              "所以在受限运行器里不可用",
    },
    "refused.memory-storage": {
        "en": "{owner}.{name} is not available in the restricted runner: a storage offers only "
              "facts about its memory and copies of it (use the tensor for the rest)",
        "zh": "{owner}.{name} 在受限运行器里不可用：存储（storage）只提供关于其内存的信息和副本"
              "（其余操作请对张量做）",
    },
    "refused.memory-out": {
        "en": "out= into a tensor that shares its memory with a NumPy array is not available "
              "in the restricted runner (torch would give it a shape its memory cannot hold): "
              "use the result instead (y = torch.add(a, b))",
        "zh": "在受限运行器里不能用 out= 写入与 NumPy 数组共享内存的张量"
              "（torch 会给它一个内存容纳不下的形状）：请改用返回值（y = torch.add(a, b)）",
    },
    # --- the constructs refused.construct names (sandbox._REFUSED_NODES)
    "construct.async-functions": {"en": "async functions", "zh": "异步函数（async def）"},
    "construct.async-for": {"en": "async for loops", "zh": "async for 循环"},
    "construct.async-with": {"en": "async with statements", "zh": "async with 语句"},
    "construct.await": {"en": "await expressions", "zh": "await 表达式"},
    "construct.global": {"en": "global statements", "zh": "global 声明"},
    "construct.nonlocal": {"en": "nonlocal statements", "zh": "nonlocal 声明"},
    "construct.yield": {"en": "yield expressions", "zh": "yield（生成器函数）"},
    "construct.yield-from": {"en": "yield from expressions", "zh": "yield from（生成器函数）"},
    "construct.match": {"en": "match statements", "zh": "match 语句"},
    "construct.except-star": {"en": "except* clauses", "zh": "except* 语句"},
    "construct.type-aliases": {"en": "type aliases", "zh": "类型别名（type 语句）"},
    "construct.class-decorators": {"en": "class decorators", "zh": "类装饰器"},
    "construct.class-keywords": {
        "en": "metaclasses and other class keywords",
        "zh": "元类和其他类关键字参数（如 metaclass=）",
    },
    "construct.type-parameters": {"en": "type parameters", "zh": "类型参数"},
    # --- why a program stopped (sandbox.Stopped.reason)
    "stop.cancelled": {"en": "it was cancelled", "zh": "程序被取消了"},
    "stop.time-limit": {
        "en": "it ran longer than the time limit ({seconds} s)",
        "zh": "程序运行超过了时间限制（{seconds} 秒）",
    },
    "stop.steps": {"en": "it ran more than {steps} steps", "zh": "程序运行超过了 {steps} 步"},
    # --- devices (devices.check_device)
    "device.unavailable": {
        "en": "device {name!r} is not available on this machine; available: {available}",
        "zh": "设备 {name!r} 在这台机器上不可用；可用的设备：{available}",
    },
    "device.bad-name": {
        "en": "{name!r} is not a device name ({detail})",
        "zh": "{name!r} 不是设备名（{detail}）",
    },
    # --- the headlines of runner.ProgramError
    "error.refused": {"en": "Refused: {reason}.", "zh": "已拒绝：{reason}"},
    "error.uninspectable-why": {
        "en": "The statement made a value that cannot be inspected; it was undone.",
        "zh": "这条语句产生了一个无法查看的值，所以它已被撤销。",
    },
    "error.refused-why": {
        "en": "Lessons and programs can come from other people, so the restricted runner does "
              "not let them import modules, reach Python internals (names starting with '_') "
              "or use torch/NumPy functions that read or write files, start processes or load "
              "code.",
        "zh": "课程和程序可能来自别人，所以受限运行器不允许它们导入模块、"
              "访问 Python 的内部机制（以 '_' 开头的名字），"
              "也不允许使用读写文件、启动进程或加载代码的 torch/NumPy 函数。",
    },
    "error.stopped": {
        "en": "Stopped: the program was stopped because {reason}. The statement it was running "
              "binds nothing; the workspace keeps what it had.",
        "zh": "已停止：{reason}。正在运行的语句不会绑定任何名字，工作区保留原来的值。",
    },
    "error.expect-one": {
        "en": "an expectation must be one expression",
        "zh": "一条 expect 只能是一个表达式",
    },
    "error.syntax": {
        "en": "SyntaxError: {detail}. This is not valid Python here; look at this line and the "
              "one before it (a missing bracket, quote or colon is the usual cause).",
        "zh": "SyntaxError: {detail}。这里不是有效的 Python 代码；"
              "请检查这一行和它的上一行（通常是少了括号、引号或冒号）。",
    },
    "error.device": {"en": "Device: {reason}.", "zh": "{reason}。"},
    "error.device-other": {"en": "Device: {reason}.", "zh": "设备：{reason}。"},
    "error.busy": {
        "en": "Another program is still running in this workspace.",
        "zh": "这个工作区里还有另一个程序在运行。",
    },
    # --- the frame ProgramError.text puts around them
    "frame.line": {"en": "Line {line}", "zh": "第 {line} 行"},
    "frame.line-text": {"en": "Line {line}: {text}", "zh": "第 {line} 行：{text}"},
    "frame.cause": {"en": "What usually causes this: {text}", "zh": "通常的原因：{text}"},
    "frame.values": {"en": "Values on this line:", "zh": "这一行上的值："},
    "frame.note": {"en": "Note: {text}", "zh": "注意：{text}"},
    # --- the runner's notes (ProgramError.notes, Outcome.notes)
    "note.inside": {
        "en": "the error happened inside {function}, defined in an earlier program",
        "zh": "错误发生在 {function} 内部，它是在之前的程序里定义的",
    },
    "note.too-large": {
        "en": "{names} may have been changed in place before the error and were too large to "
              "restore.",
        "zh": "{names} 可能在出错之前已被原地修改，而且太大，无法恢复原值。",
    },
    "note.not-restored": {
        "en": "{names} could not be restored after the error and may keep the failed "
              "statement's changes.",
        "zh": "{names} 在出错后无法恢复原值，可能仍带着出错语句所做的修改。",
    },
    "note.warning": {
        "en": "{category}: {message} ({plain})",
        "zh": "{category}: {message}（{plain}）",
    },
    # --- the operands of a failing line (runner.describe_operand)
    "operand.module": {
        "en": "{cls} module, parameters {where}",
        "zh": "{cls} 模块，参数 {where}",
    },
    "operand.module-empty": {
        "en": "{cls} module, parameters no parameters",
        "zh": "{cls} 模块，没有参数",
    },
    "operand.container": {"en": "{kind} of {count}", "zh": "{kind}，{count} 项"},
    # --- files that cannot be opened (core/loading.py, core/session.py)
    # (dtype names, file and member names, numbers and Python reprs stay as they are; an OS or
    # zlib message inside {why} stays as the OS wrote it)
    "load.failed": {"en": "{name}: {why}", "zh": "{name}：{why}"},
    "load.field": {"en": "{name}: field {field!r}", "zh": "{name}：字段 {field!r}"},
    "load.no-file": {"en": "no such file", "zh": "没有这个文件"},
    "load.permission": {"en": "permission denied", "zh": "没有读取权限"},
    "load.unreadable": {"en": "could not be read ({why})", "zh": "无法读取（{why}）"},
    "load.folder-npy": {"en": "is a folder, not a .npy file",
                        "zh": "这是一个文件夹，不是 .npy 文件"},
    "load.folder-npz": {"en": "is a folder, not a .npz file",
                        "zh": "这是一个文件夹，不是 .npz 文件"},
    "load.folder-program": {"en": "is a folder, not a program",
                            "zh": "这是一个文件夹，不是程序文件"},
    "load.not-array-file": {"en": "is neither a .npy nor a .npz file",
                            "zh": "既不是 .npy 文件，也不是 .npz 文件"},
    "load.not-utf8": {"en": "not a UTF-8 text file", "zh": "不是 UTF-8 编码的文本文件"},
    "load.program-too-large": {"en": "a program of {nbytes:,} bytes is too large",
                               "zh": "程序有 {nbytes:,} 字节，太大了"},
    "load.no-memory": {"en": "{nbytes:,} bytes do not fit in memory",
                       "zh": "{nbytes:,} 字节的数据放不进内存"},
    "load.no-memory-limit": {
        "en": "{nbytes:,} bytes do not fit in memory ({limit:,} bytes available)",
        "zh": "{nbytes:,} 字节的数据放不进内存（可用内存只有 {limit:,} 字节）",
    },
    "load.no-torch-dtype": {
        "en": "torch has no {dtype} type; convert the array to float64 first",
        "zh": "torch 没有 {dtype} 类型；请先把数组转换为 float64",
    },
    # a .npy header (also that of each .npz member)
    "load.not-npy": {
        "en": "not a .npy array (the file does not start with the .npy magic bytes)",
        "zh": "不是 .npy 数组（文件的开头不是 .npy 的魔数字节）",
    },
    "load.npy-is-zip": {"en": "is a zip archive (a .npz), not a .npy file",
                        "zh": "这是一个 zip 压缩包（.npz），不是 .npy 文件"},
    "load.npz-is-npy": {"en": "is a .npy file, not a .npz (zip) archive",
                        "zh": "这是一个 .npy 文件，不是 .npz（zip）压缩包"},
    "load.version": {"en": "unknown .npy format version {major}.{minor}",
                     "zh": "未知的 .npy 格式版本 {major}.{minor}"},
    "load.truncated-header-length": {
        "en": "file is truncated: it ends inside the header length",
        "zh": "文件被截断了：它在头部长度字段的中间就结束了",
    },
    "load.truncated-header": {"en": "file is truncated: it ends inside the header",
                              "zh": "文件被截断了：它在头部的中间就结束了"},
    "load.header-too-large": {"en": "header of {nbytes} bytes is too large (at most {limit})",
                              "zh": "{nbytes} 字节的头部太大了（最多 {limit} 字节）"},
    "load.header-invalid": {"en": "the header is not a valid .npy header dictionary",
                            "zh": "头部不是有效的 .npy 头部字典"},
    "load.header-keys": {"en": "the header must have exactly the keys descr, fortran_order, shape",
                         "zh": "头部必须恰好含有 descr、fortran_order、shape 这三个键"},
    "load.header-dtype": {"en": "unknown dtype {descr} in the header",
                          "zh": "头部里的 dtype {descr} 未知"},
    "load.header-order": {"en": "fortran_order in the header must be True or False",
                          "zh": "头部里的 fortran_order 必须是 True 或 False"},
    "load.header-shape": {
        "en": "shape {shape} in the header is not a tuple of non-negative integers",
        "zh": "头部里的形状 {shape} 不是由非负整数组成的元组",
    },
    "load.truncated-data-promised": {
        "en": "file is truncated: the header promises {nbytes:,} bytes of data "
              "(shape {shape}, {dtype}) but only {have:,} follow",
        "zh": "文件被截断了：头部声明有 {nbytes:,} 字节的数据（形状 {shape}，{dtype}），"
              "但后面只有 {have:,} 字节",
    },
    "load.truncated-data": {"en": "file is truncated: the data ends early",
                            "zh": "文件被截断了：数据提前结束了"},
    # dtypes that are not loaded (check_dtype)
    "load.dtype-objects": {
        "en": "dtype {dtype} holds Python objects (they would have to be unpickled, which can "
              "run code); it is not loaded",
        "zh": "dtype {dtype} 含有 Python 对象（读取它们需要反序列化 pickle，而这可能运行代码）；"
              "不会加载它",
    },
    "load.dtype-is-objects": {
        "en": "dtype {dtype} is Python objects (they would have to be unpickled, which can run "
              "code); it is not loaded",
        "zh": "dtype {dtype} 是 Python 对象（读取它们需要反序列化 pickle，而这可能运行代码）；"
              "不会加载它",
    },
    "load.dtype-void": {"en": "dtype {dtype} is raw bytes with no type (void); it is not loaded",
                        "zh": "dtype {dtype} 是没有类型的原始字节（void）；不会加载它"},
    "load.dtype-subarray": {
        "en": "dtype {dtype} is a sub-array dtype; only records and plain arrays load",
        "zh": "dtype {dtype} 是子数组 dtype；只能加载结构化记录和普通数组",
    },
    "load.dtype-unsupported": {"en": "dtype {dtype} is not supported",
                               "zh": "不支持 dtype {dtype}"},
    # .npz archives and their members
    "load.bad-zip": {"en": "not a valid .npz (zip) archive ({why})",
                     "zh": "不是有效的 .npz（zip）压缩包（{why}）"},
    "load.zip-feature": {"en": "uses an unsupported zip feature ({why})",
                         "zh": "使用了不支持的 zip 功能（{why}）"},
    "load.no-arrays": {"en": "the archive holds no arrays{skipped}",
                       "zh": "压缩包里没有数组{skipped}"},
    "load.skipped": {"en": "; skipped {member!r}: {why}", "zh": "；已跳过 {member!r}：{why}"},
    "load.skipped-not-npy": {"en": "not a .npy array", "zh": "不是 .npy 数组"},
    "load.member-twice": {"en": "the archive holds {key!r} twice",
                          "zh": "压缩包里有两个 {key!r}"},
    "load.member-encrypted": {"en": "member {member!r} is encrypted",
                              "zh": "成员 {member!r} 是加密的"},
    "load.member-compression": {
        "en": "member {member!r} uses an unsupported zip feature (compression method {method})",
        "zh": "成员 {member!r} 使用了不支持的 zip 功能（压缩方法 {method}）",
    },
    "load.member-truncated": {"en": "member {member!r} is truncated",
                              "zh": "成员 {member!r} 被截断了"},
    "load.member-zip-header": {"en": "member {member!r} has a damaged zip header",
                               "zh": "成员 {member!r} 的 zip 头部已损坏"},
    "load.member-names-differ": {
        "en": "member {member!r} has a damaged zip header (names differ)",
        "zh": "成员 {member!r} 的 zip 头部已损坏（两处记录的名字不同）",
    },
    "load.member-damaged": {"en": "the member is damaged ({why})",
                            "zh": "这个成员已损坏（{why}）"},
    "load.member-changed": {"en": "the member changed since the archive was opened",
                            "zh": "压缩包打开之后，这个成员被改动了"},
    "load.member-more": {"en": "the member holds more bytes than it declares",
                         "zh": "这个成员的字节数比它声明的多"},
    "load.deflate-damaged": {"en": "the compressed data is damaged ({why})",
                             "zh": "压缩的数据已损坏（{why}）"},
    "load.truncated-compressed": {"en": "file is truncated: the compressed data ends early",
                                  "zh": "文件被截断了：压缩的数据提前结束了"},
    "load.inflates-fewer": {"en": "the member inflates to fewer bytes than it declares",
                            "zh": "这个成员解压后的字节数比它声明的少"},
    "load.inflates-more": {"en": "the member inflates to more bytes than it declares",
                           "zh": "这个成员解压后的字节数比它声明的多"},
    "load.crc-mismatch": {"en": "the data does not match the archive's checksum (CRC-32)",
                          "zh": "数据与压缩包记录的校验和（CRC-32）不一致"},
    "load.crc-unreadable": {"en": "its checksum could not be read ({why})",
                            "zh": "无法读取它的校验和（{why}）"},
    "load.archive-closed": {"en": "the archive was closed before this member was read",
                            "zh": "读取这个成员之前，压缩包已经关闭了"},
    # session files (.txs)
    "session.invalid": {"en": "not a valid session file: {why}",
                        "zh": "不是有效的会话文件：{why}"},
    "session.bad-zip": {"en": "not a valid session file (a damaged zip archive: {why})",
                        "zh": "不是有效的会话文件（zip 归档已损坏：{why}）"},
    "session.folder": {"en": "is a folder, not a session file",
                       "zh": "这是一个文件夹，不是会话文件"},
    "session.no-memory": {"en": "the session does not fit in memory",
                          "zh": "这个会话放不进内存"},
    "session.needs-memory": {
        "en": "the session needs {nbytes:,} bytes of memory; only {available:,} are available",
        "zh": "这个会话需要 {nbytes:,} 字节的内存；可用的只有 {available:,} 字节",
    },
    "session.not-ours": {"en": "this is not a Tensor Explorer session",
                         "zh": "这不是 Tensor Explorer 的会话"},
    "session.version-type": {"en": "the session version must be an integer",
                             "zh": "会话的版本号必须是整数"},
    "session.newer": {
        "en": "the session was written by a newer version (format {version}; this one reads "
              "up to {supported})",
        "zh": "这个会话是由更新的版本写的（格式 {version}；这个版本最多只能读 {supported}）",
    },
    "session.byteorder": {"en": "the session was written on a {byteorder}-endian machine",
                          "zh": "这个会话是在 {byteorder}-endian 字节序的机器上写的"},
    "session.no-manifest": {"en": "there is no manifest.json (is this a session file?)",
                            "zh": "没有 manifest.json（这是会话文件吗？）"},
    "session.manifest-too-large": {"en": "the manifest is too large",
                                   "zh": "清单（manifest）太大了"},
    "session.manifest-json": {"en": "the manifest is not valid JSON ({why})",
                              "zh": "清单（manifest）不是有效的 JSON（{why}）"},
    "session.manifest-constant": {"en": "the manifest holds {constant}, which is not JSON",
                                  "zh": "清单（manifest）里有 {constant}，这不是 JSON"},
    "session.member-twice": {"en": "the archive holds a member twice",
                             "zh": "归档里有一个成员出现了两次"},
    "session.member-unexpected": {"en": "unexpected member {member!r}",
                                  "zh": "意外的成员 {member!r}"},
    "session.members-unexpected": {"en": "the archive holds unexpected members",
                                   "zh": "归档里有意外的成员"},
    "session.data-missing": {"en": "the data of allocation {index} is missing",
                             "zh": "内存块 {index} 的数据缺失"},
    "session.data-size": {"en": "the data of allocation {index} has {size} bytes, not {nbytes}",
                          "zh": "内存块 {index} 的数据有 {size} 字节，而不是 {nbytes} 字节"},
    "session.data-compression": {
        "en": "the data of allocation {index} uses an unsupported compression",
        "zh": "内存块 {index} 的数据使用了不支持的压缩方式",
    },
    "session.data-early": {"en": "the data of {member} ends early",
                           "zh": "{member} 的数据提前结束了"},
    "session.data-more": {"en": "{member} holds more data than declared",
                          "zh": "{member} 的数据比声明的多"},
    "session.name-twice": {"en": "the name {name!r} appears twice",
                           "zh": "名字 {name!r} 出现了两次"},
    "session.value-name": {"en": "value {index}: {why}", "zh": "值 {index}：{why}"},
    "session.value-dtype": {"en": "{what}: unknown array dtype {dtype}",
                            "zh": "{what}：未知的数组 dtype {dtype}"},
    "session.value-kind": {"en": "{what}: unknown kind {kind}",  # (kind: a repr)
                           "zh": "{what}：未知的种类 {kind}"},
    "session.plain-too-deep": {"en": "a plain value is too deep",
                               "zh": "一个普通值嵌套得太深了"},
    "session.plain-malformed": {"en": "a plain value is malformed",
                                "zh": "一个普通值的格式不对"},
    "session.plain-tag": {"en": "a plain value is malformed ({tag!r})",
                          "zh": "一个普通值的格式不对（{tag!r}）"},
    "session.key-unhashable": {"en": "a dict key is not hashable",
                               "zh": "一个字典的键不可哈希"},
    # (end of files that cannot be opened)
    # --- lessons that cannot be read, session fields, notes (core/lessons.py, core/session.py,
    # core/loading.py)
    # (file names, the lesson's keys such as 'title:', directives, code and Python's own words
    # stay as written)
    "lesson.failed": {"en": "{where}: {why}", "zh": "{where}：{why}"},
    "lesson.skip-cuda": {"en": "needs a CUDA GPU, and this machine has none",
                         "zh": "需要 CUDA GPU，而这台机器没有"},
    "lesson.at-line": {"en": "{where}, line {line}", "zh": "{where}，第 {line} 行"},
    "lesson.unnamed": {"en": "lesson", "zh": "课程"},
    "lesson.no-front-matter": {
        "en": "a lesson starts with a front matter: a line '---', then 'name:', 'title:' and "
              "'language:' lines, then '---'",
        "zh": "课程以前置信息（front matter）开头：先是一行 '---'，然后是 'name:'、"
              "'title:' 和 'language:' 这几行，最后再是一行 '---'",
    },
    "lesson.front-needs-key": {"en": "the front matter needs a '{key}:' line",
                               "zh": "前置信息缺少 '{key}:' 这一行"},
    "lesson.front-not-pair": {"en": "expected 'key: value' in the front matter, got {text!r}",
                              "zh": "前置信息里应当是 'key: value' 的形式，实际是 {text!r}"},
    "lesson.front-unknown-key": {"en": "unknown front matter key {key!r} (use {keys})",
                                 "zh": "未知的前置信息键 {key!r}（请使用 {keys}）"},
    "lesson.front-twice": {"en": "'{key}:' is given twice", "zh": "'{key}:' 出现了两次"},
    "lesson.front-not-closed": {"en": "the front matter is not closed with a '---' line",
                                "zh": "前置信息没有以一行 '---' 结束"},
    "lesson.bad-name": {
        "en": "name: {name!r} should be lower-case letters, digits and '-' (like numpy-sharing)",
        "zh": "name: {name!r} 只能由小写字母、数字和 '-' 组成（例如 numpy-sharing）",
    },
    "lesson.bad-language": {"en": "language: {language!r} is not one of {languages}",
                            "zh": "language: {language!r} 不是 {languages} 之一"},
    "lesson.needs-value": {"en": "'{key}:' needs a value", "zh": "'{key}:' 需要一个值"},
    "lesson.step-twice": {"en": "'{key}:' is given twice in step {title!r}",
                          "zh": "'{key}:' 在步骤 {title!r} 里出现了两次"},
    "lesson.no-panel": {"en": "panel {value!r} does not exist; use one of {panels}",
                        "zh": "面板 {value!r} 不存在；请使用 {panels} 之一"},
    "lesson.select-not-name": {"en": "select: {value!r} is not a value name",
                               "zh": "select: {value!r} 不是值的名字"},
    "lesson.requires-unknown": {"en": "requires: {value!r} is not known; use {known}",
                                "zh": "requires: {value!r} 未知；请使用 {known}"},
    "lesson.expect-error-token": {
        "en": "expect-error: {value!r} should be one error kind (device-mismatch) or "
              "exception type (RuntimeError)",
        "zh": "expect-error: {value!r} 应当是一个错误类别（如 device-mismatch）"
              "或一个异常类型（如 RuntimeError）",
    },
    "lesson.expect-not-python": {"en": "expect: {value!r} is not a Python expression ({why})",
                                 "zh": "expect: {value!r} 不是 Python 表达式（{why}）"},
    "lesson.code-invalid": {
        "en": "the code of step {number} is not valid Python ({why}); a step whose code is "
              "meant to fail says so with 'expect-error: syntax'",
        "zh": "第 {number} 步的代码不是有效的 Python（{why}）；如果这一步的代码本来就要出错，"
              "请用 'expect-error: syntax' 注明",
    },
    "lesson.code-before-step": {
        "en": "a python block before the first '## ' step runs nowhere; put it inside a step",
        "zh": "第一个 '## ' 步骤之前的 python 代码块不会运行；请把它放进某个步骤里",
    },
    "lesson.step-needs-title": {"en": "a step needs a title after '## '",
                                "zh": "步骤需要在 '## ' 后面写上标题"},
    "lesson.directive-before-step": {"en": "'{key}:' before the first '## ' step",
                                     "zh": "'{key}:' 出现在第一个 '## ' 步骤之前"},
    "lesson.fence-not-closed": {"en": "the code block opened here is never closed with {fence}",
                                "zh": "从这里开始的代码块始终没有用 {fence} 结束"},
    "lesson.no-steps": {"en": "a lesson needs at least one step (a '## Title' section)",
                        "zh": "课程至少需要一个步骤（一个以 '## Title' 开头的小节）"},
    "lesson.too-large": {"en": "a lesson of {nbytes:,} bytes is too large",
                         "zh": "课程文件有 {nbytes:,} 字节，太大了"},
    "lesson.not-found": {
        "en": "no lesson file or shipped lesson of this name (shipped: {names})",
        "zh": "没有这个名字的课程文件或内置课程（内置课程：{names}）",
    },
    "lesson.none-shipped": {"en": "none", "zh": "无"},
    "lesson.cannot-read": {"en": "cannot read the lesson: {why}", "zh": "无法读取课程：{why}"},
    # a session file's fields: where in the manifest ({what})...
    "session.at-manifest": {"en": "the manifest", "zh": "清单（manifest）"},
    "session.at-allocation": {"en": "allocation {index}", "zh": "内存块 {index}"},
    "session.at-value": {"en": "value {name!r}", "zh": "值 {name!r}"},
    "session.at-record": {"en": "history record {number}", "zh": "第 {number} 条历史记录"},
    "session.at-origin": {"en": "origin of {name!r}", "zh": "{name!r} 的来源"},
    "session.at-key": {"en": "{what}: {key}", "zh": "{what}：{key}"},  # (key as written)
    "session.at-size": {"en": "{what}: size", "zh": "{what}：大小"},
    "session.at-storage-start": {"en": "{what}: storage start", "zh": "{what}：存储的起点"},
    "session.at-storage-size": {"en": "{what}: storage size", "zh": "{what}：存储的大小"},
    "session.at-grad": {"en": "{what}.grad", "zh": "{what} 的 .grad"},
    "session.at-state": {"en": "{what}[{key}]", "zh": "{what} 的状态项 [{key}]"},
    # ... and what is wrong there
    "session.int-range": {"en": "{what} must be an integer from {lo} to {hi}",
                          "zh": "{what} 必须是 {lo} 到 {hi} 之间的整数"},
    "session.text": {"en": "{what} must be text", "zh": "{what} 必须是文本"},
    "session.int-list": {"en": "{what} must be a list of at most {most} integers",
                         "zh": "{what} 必须是最多含 {most} 个整数的列表"},
    "session.names": {"en": "{what} must be a list of names",
                      "zh": "{what} 必须是由名字组成的列表"},
    "session.object": {"en": "{what} must be an object", "zh": "{what} 必须是一个 JSON 对象"},
    "session.unknown-fields": {"en": "{what} has unknown fields {fields}",
                               "zh": "{what} 含有未知的字段 {fields}"},
    "session.lacks": {"en": "{what} lacks {fields}", "zh": "{what} 缺少字段 {fields}"},
    "session.layout-length": {"en": "{what}: shape and {key} differ in length",
                              "zh": "{what}：shape 和 {key} 的长度不同"},
    "session.too-many-elements": {"en": "{what}: shape {shape} has too many elements",
                                  "zh": "{what}：形状 {shape} 的元素太多了"},
    "session.tensor-dtype": {"en": "{what}: unknown tensor dtype {dtype}",
                             "zh": "{what}：未知的张量 dtype {dtype}"},
    "session.unknown-device": {"en": "{what}: unknown device", "zh": "{what}：未知的设备"},
    "session.flag": {"en": "{what}: {key} must be true or false",
                     "zh": "{what}：{key} 必须是 true 或 false"},
    "session.unknown-role": {"en": "{what}: unknown role", "zh": "{what}：未知的角色（role）"},
    "session.unexpected-role": {"en": "{what}: unexpected role",
                                "zh": "{what}：这里不应有角色（role）"},
    "session.missing-role": {"en": "{what}: missing role", "zh": "{what}：缺少角色（role）"},
    "session.tensor-needs-data": {"en": "{what}: a tensor with elements needs its data",
                                  "zh": "{what}：有元素的张量需要它的数据"},
    "session.storage-no-alloc": {"en": "{what}: storage without allocation",
                                 "zh": "{what}：有 storage 却没有内存块"},
    "session.storage-pair": {"en": "{what}: storage must be [start, nbytes]",
                             "zh": "{what}：storage 必须是 [start, nbytes]"},
    "session.storage-outside": {"en": "{what}: storage lies outside its allocation",
                                "zh": "{what}：storage 超出了它的内存块"},
    "session.tensor-no-elements": {"en": "{what}: a tensor without elements has no allocation",
                                   "zh": "{what}：没有元素的张量不该有内存块"},
    "session.elements-outside-storage": {
        "en": "{what}: elements lie outside their storage (offset, strides and shape reach "
              "byte {reach}, storage has {size})",
        "zh": "{what}：元素超出了它们的存储（偏移、步长和形状到达第 {reach} 字节，"
              "而存储只有 {size} 字节）",
    },
    "session.meta-data": {"en": "{what}: a meta tensor has no data",
                          "zh": "{what}：meta 张量没有数据"},
    "session.grad-shape": {"en": "{what}: .grad has another shape",
                           "zh": "{what}：.grad 的形状不同"},
    "session.grad-grad": {"en": "{what}: .grad has a .grad", "zh": "{what}：.grad 自己还有 .grad"},
    "session.grad-mismatch": {"en": "{name}: .grad does not match",
                              "zh": "{name}：.grad 与张量不匹配"},
    "session.array-needs-data": {"en": "{what}: an array with elements needs its data",
                                 "zh": "{what}：有元素的数组需要它的数据"},
    "session.array-no-elements": {"en": "{what}: an array without elements has no allocation",
                                  "zh": "{what}：没有元素的数组不该有内存块"},
    "session.array-outside": {"en": "{what}: elements lie outside their allocation",
                              "zh": "{what}：元素超出了它们的内存块"},
    "session.bad-allocations": {"en": "bad allocations",
                                "zh": "内存块列表（allocations）的格式不对"},
    "session.bad-values": {"en": "bad values list", "zh": "值的列表（values）的格式不对"},
    "session.value-no-name": {"en": "value {index} has no name", "zh": "值 {index} 没有名字"},
    "session.bad-state": {"en": "{what}: bad state", "zh": "{what}：状态（state）的格式不对"},
    "session.bad-state-key": {"en": "{what}: bad state key", "zh": "{what}：状态的键不对"},
    "session.bad-history": {"en": "bad history", "zh": "历史记录（history）的格式不对"},
    "session.unknown-kind": {"en": "{what}: unknown kind", "zh": "{what}：未知的种类"},
    "session.bad-field": {"en": "{what}: {key}", "zh": "{what}：{key} 的格式不对"},
    "session.bad-origins": {"en": "bad origins", "zh": "来源（origins）的格式不对"},
    "session.no-such-value": {"en": "{what}: no such value", "zh": "{what}：没有这个值"},
    "session.unknown-binding": {"en": "{what}: unknown binding", "zh": "{what}：未知的绑定方式"},
    "session.bad-selection": {"en": "bad selection", "zh": "选中的值（selected）的格式不对"},
    "session.bad-notes": {"en": "bad notes", "zh": "备注（notes）的格式不对"},
    "session.bad-reference": {"en": "{what}: bad reference", "zh": "{what}：引用的格式不对"},
    # notes for the person who opened a session (Workspace.session_notes)
    "session.note-no-cuda": {
        "en": "values saved on {device} were opened on the CPU: this machine has no such CUDA "
              "device",
        "zh": "保存在 {device} 上的值在 CPU 上打开了：这台机器没有这个 CUDA 设备",
    },
    "session.note-on-cpu": {"en": "values saved on {device} were opened on the CPU",
                            "zh": "保存在 {device} 上的值在 CPU 上打开了"},
    "session.note-no-graph": {
        "en": "{name} was computed with autograd ({grad_fn}); it opens as a plain tensor "
              "without its graph (run the saved code again to rebuild the graph)",
        "zh": "{name} 是用 autograd 算出来的（{grad_fn}）；打开后它是一个没有计算图的普通张量"
              "（再运行一次保存的代码即可重建计算图）",
    },
    "session.a-graph": {"en": "a graph", "zh": "一个计算图"},
    "session.note-not-saved": {"en": "{name} (a {typ}) was not saved: {note}",
                               "zh": "{name}（{typ}）没有保存：{note}"},
    "session.note-not-rebuilt": {"en": "{name} (a {typ}) could not be rebuilt: {problem}",
                                 "zh": "{name}（{typ}）无法重建：{problem}"},
    "session.note-dangling": {"en": "{name} refers to a value that could not be opened",
                              "zh": "{name} 引用的值无法打开"},
    "session.rebuild-failed": {"en": "running its statement again failed ({headline})",
                               "zh": "再次运行它的语句失败了（{headline}）"},
    "session.rebuild-not-run": {"en": "it could not be run again ({why})",
                                "zh": "无法再次运行它（{why}）"},
    "session.rebuild-not-function": {"en": "its statement did not make a function",
                                     "zh": "它的语句没有生成函数"},
    "session.rebuild-state": {"en": "its saved state does not fit it ({why})",
                              "zh": "保存的状态与它不相符（{why}）"},
    "session.recipe-invalid": {"en": "its statement is not valid Python",
                               "zh": "它的语句不是有效的 Python"},
    "session.recipe-not-one": {"en": "its recipe is not one statement",
                               "zh": "它的配方（recipe）不是一条语句"},
    "session.recipe-other-name": {"en": "its recipe defines another name",
                                  "zh": "它的配方定义的是另一个名字"},
    "session.recipe-not-binding": {"en": "its recipe does not bind it",
                                   "zh": "它的配方没有给它赋值"},
    "session.module-type": {"en": "its statement made a {made}, not a {typ}",
                            "zh": "它的语句生成的是 {made}，而不是 {typ}"},
    "session.module-state-keys": {"en": "its parameters and buffers are not the ones saved",
                                  "zh": "它的参数和缓冲区与保存的不一致"},
    "session.module-not-role": {"en": "{key} is not a {role} of it", "zh": "{key} 不是它的 {role}"},
    "session.module-shape": {"en": "{key} has another shape or dtype than the one saved",
                             "zh": "{key} 的形状或 dtype 与保存的不同"},
    # version 2: data never needs code; code runs again only from the user's own (signed) files
    "session.bad-tree": {"en": "{what}: bad tree of submodules",
                         "zh": "{what}：子模块树的格式不对"},
    "session.at-node": {"en": "{what}: submodule {index}", "zh": "{what}：第 {index} 个子模块"},
    "session.bad-module": {"en": "module {name!r} cannot be put together from its data ({why})",
                           "zh": "无法用保存的数据拼出模块 {name!r}（{why}）"},
    "session.saved-module-name": {"en": "{typ} (saved, not rebuilt)",
                                  "zh": "{typ}（已保存，未重建）"},
    "session.saved-module-forward": {
        "en": "{typ}'s code has not run: trust the session to rebuild it",
        "zh": "{typ} 的代码还没有运行：信任这个会话即可重建它",
    },
    "session.note-no-recipe": {
        "en": "{name} (a {typ}) shows its saved parameters and buffers: no statement in the "
              "session can rebuild it",
        "zh": "{name}（{typ}）只显示保存的参数和缓冲区：会话里没有能重建它的语句",
    },
    "session.note-code-not-run": {
        "en": "the session's code did not run ({why}): {names} not rebuilt; its modules show "
              "their saved parameters and buffers. Trust the session to rebuild them",
        "zh": "会话里的代码没有运行（{why}）：{names} 没有重建；其中的模块只显示保存的参数和"
              "缓冲区。信任这个会话即可重建它们",
    },
    "session.foreign-v1": {
        "en": "it was written by an older version of the app, which did not sign its files",
        "zh": "它是旧版应用写的，旧版不给文件签名",
    },
    "session.foreign-unsigned": {"en": "it is not signed: this app did not write it for you",
                                 "zh": "它没有签名：不是本应用为你写的"},
    "session.foreign-other": {
        "en": "its signature is not yours: it was written elsewhere, or changed since",
        "zh": "它的签名不是你的：它是在别处写的，或者写好后被改过",
    },
    "session.rebuild-not-class": {"en": "its statement did not make a class",
                                  "zh": "它的语句没有生成类"},
    "session.optimizer-class": {"en": "{typ} is not an optimizer of torch.optim",
                                "zh": "{typ} 不是 torch.optim 的优化器"},
    "session.undo-rebuilt": {"en": "the session's code was rebuilt", "zh": "会话的代码已重建"},
    # notes on how a file was read (loading.load_notes, to_tensor)
    "load.note-trailing": {"en": "{nbytes:,} bytes after the data were ignored, as NumPy does",
                           "zh": "数据后面的 {nbytes:,} 字节被忽略了（NumPy 也是这样做的）"},
    "load.copied": {"en": "copied: {reasons}. The tensor does not share memory.",
                    "zh": "已复制：{reasons}。这个张量不与数组共享内存。"},
    "load.copied-and": {"en": "{first}; {rest}", "zh": "{first}；{rest}"},
    "load.copied-byte-order": {
        "en": "its bytes are big-endian and were converted to this machine's order",
        "zh": "它的字节是大端序的，已转换为本机的字节序",
    },
    "load.copied-strides": {"en": "it has negative or unaligned strides, which torch cannot view",
                            "zh": "它的步长为负或没有对齐，torch 无法直接查看"},
    "load.copied-read-only": {"en": "its memory is read-only, and a tensor must be able to write",
                              "zh": "它的内存是只读的，而张量必须能够写入"},
    # (end of lessons that cannot be read, session fields, notes)
    # --- the autograd graph pane's texts (core/graph_texts.py, core/graph_session.py)
    # what a node says (graph_texts.node_texts)
    "graph.leaf": {"en": "leaf {shape} {dtype}", "zh": "叶子 {shape} {dtype}"},
    "graph.ops": {"en": "{count} ops", "zh": "{count} 个运算"},
    "graph.repeat-ops": {"en": "{repeats} × {count} ops", "zh": "{repeats} × {count} 个运算"},
    "graph.block": {"en": "block {index} of {repeats}", "zh": "第 {index} 块，共 {repeats} 块"},
    "graph.click-to-expand": {"en": "click to expand", "zh": "点击展开"},
    "graph.root-named": {"en": "root: {name}", "zh": "根：{name}"},
    "graph.root": {"en": "root", "zh": "根"},
    "graph.retained": {"en": "grad (retained) = {value}", "zh": "grad（保留）= {value}"},
    "graph.stale": {"en": "saved tensor changed in place!", "zh": "保存的张量被原地修改了！"},
    "graph.call": {"en": "call {index}", "zh": "第 {index} 次调用"},
    "graph.calls": {"en": "{repeats} calls in a row", "zh": "连续 {repeats} 次调用"},
    "graph.tip-leaf": {
        "en": "A leaf: backward accumulates its gradient into .grad.",
        "zh": "叶子：backward 把它的梯度累积到 .grad 中。",
    },
    "graph.tip-chain": {
        "en": "A chain of operations with one input and one consumer each.",
        "zh": "一条运算链：每个运算只有一个输入和一个使用者。",
    },
    "graph.tip-repeat": {
        "en": "The same block of operations {repeats} times in a row (a loop, or a stack of "
              "layers): click to show the blocks.",
        "zh": "同一块运算连续出现 {repeats} 次（循环，或堆叠的层）：点击显示各个块。",
    },
    "graph.tip-block": {
        "en": "One block of a repeated run; block 1 was computed first. Click to show its "
              "operations.",
        "zh": "一串重复块中的一块；第 1 块最先计算。点击显示其中的运算。",
    },
    "graph.tip-op": {"en": "Click for its saved tensors.", "zh": "点击查看它保存的张量。"},
    "graph.tip-module": {
        "en": "The operations one call of {title} made. Click to show them.",
        "zh": "{title} 一次调用所做的运算。点击展开查看。",
    },
    "graph.no-values": {"en": "(meta: no values)", "zh": "（meta：没有数值）"},
    # what an edge says (graph_texts.edge_texts)
    "graph.no-grad": {"en": "no grad", "zh": "无梯度"},
    "graph.outputs": {"en": "outputs {outputs}", "zh": "输出 {outputs}"},
    "graph.out": {"en": "out {output}:", "zh": "输出 {output}："},
    # a constant cut off from the graph (graph_texts.const_label, CUT_REASONS)
    "graph.constant": {"en": "constant · {reason}", "zh": "常量 · {reason}"},
    "graph.gradient-stops": {"en": "gradient stops here", "zh": "梯度在这里停止"},
    "graph.cut-no-grad": {
        "en": "Made inside torch.no_grad(): autograd recorded nothing, so this value is a "
              "constant and gradient stops here.",
        "zh": "在 torch.no_grad() 中创建：autograd 没有记录任何运算，所以这个值是常量，"
              "梯度到这里就停止了。",
    },
    "graph.cut-inference-mode": {
        "en": "Made inside torch.inference_mode(): no graph and no version counter; this value is "
              "a constant and gradient stops here.",
        "zh": "在 torch.inference_mode() 中创建：没有计算图，也没有版本计数；这个值是常量，"
              "梯度到这里就停止了。",
    },
    "graph.cut-detach": {
        "en": "Made by .detach(): it shares memory with the value it came from but is cut off "
              "from the graph; gradient does not flow through it.",
        "zh": "由 .detach() 得到：它和原来的值共享内存，但已从计算图上断开；梯度不会流过它。",
    },
    # the gradient= field (graph_texts.parse_gradient, graph_session.root_shape_hint)
    "graph.gradient-unreadable": {
        "en": "Could not read the gradient '{text}': write ones, a number, or a list like [1.0, "
              "1.0] with the root's shape.",
        "zh": "无法读取梯度“{text}”：请写 ones、一个数，或形如 [1.0, 1.0] 且与根形状相同的列表。",
    },
    "graph.gradient-not-numbers": {
        "en": "The gradient must be numbers: ones, a number, or a list like [1.0, 1.0].",
        "zh": "梯度必须是数字：ones、一个数，或形如 [1.0, 1.0] 的列表。",
    },
    "graph.gradient-not-rectangular": {
        "en": "The gradient list is not a rectangular list of numbers ({error}).",
        "zh": "梯度列表不是规整的数字列表（{error}）。",
    },
    "graph.gradient-not-needed": {
        "en": "not needed: the root is a single number",
        "zh": "不需要：根是一个数",
    },
    "graph.gradient-needed": {
        "en": "needed: root has shape {shape}; e.g. ones or [1.0, ...]",
        "zh": "需要：根的形状是 {shape}；例如 ones 或 [1.0, ...]",
    },
    # what the pane says above the graph (graph_session.GraphSession)
    "graph.no-grad-fn": {
        "en": "No value has a grad_fn yet: compute something from a tensor with "
              "requires_grad=True.",
        "zh": "还没有带 grad_fn 的值：用 requires_grad=True 的张量计算一些结果吧。",
    },
    "graph.replica-dropped": {
        "en": "The workspace changed, so the pane shows it again (the device re-run was dropped).",
        "zh": "工作区已改变，所以面板重新显示它（设备上的重新运行已放弃）。",
    },
    "graph.opened-module": {
        "en": "Opened {title}: the {count} operations this call made.",
        "zh": "已展开 {title}：这次调用所做的 {count} 个运算。",
    },
    "graph.expanded-repeat": {
        "en": "Expanded {repeats} repeated blocks of {count} operations each.",
        "zh": "展开了 {repeats} 个重复块，每块 {count} 个运算。",
    },
    "graph.expanded-block": {
        "en": "Expanded block {index} of {repeats} ({count} operations).",
        "zh": "展开了第 {index} 块（共 {repeats} 块，{count} 个运算）。",
    },
    "graph.expanded-chain": {
        "en": "Expanded a chain of {count} operations.",
        "zh": "展开了一条包含 {count} 个运算的链。",
    },
    "graph.folded": {"en": "Folded the groups again.", "zh": "已把分组重新折叠。"},
    "graph.busy": {
        "en": "A program is running in the workspace; wait for it to finish (or stop it) first.",
        "zh": "工作区中有程序正在运行；请先等它结束（或停止它）。",
    },
    "graph.no-graph": {"en": "There is no graph to work on.", "zh": "没有可以操作的计算图。"},
    "graph.backward-done": {
        "en": "backward ×{count} done (call {step} since .grad was None). {values}",
        "zh": "backward ×{count} 完成（自 .grad 为 None 以来第 {step} 次）。{values}",
    },
    "graph.backward-then": {
        "en": "{count} backward call(s) ran, then: {error}",
        "zh": "运行了 {count} 次 backward，之后：{error}",
    },
    "graph.zero-grad-none": {
        "en": "zero_grad(set_to_none=True): every leaf's .grad is None now; the next backward "
              "starts counting again at call 1.",
        "zh": "zero_grad(set_to_none=True)：现在每个叶子的 .grad 都是 None；"
              "下一次 backward 重新从第 1 次开始计数。",
    },
    "graph.zero-grad-zeros": {
        "en": "zero_grad(set_to_none=False): each .grad is a tensor of zeros (a leaf that had no "
              "gradient stays None).",
        "zh": "zero_grad(set_to_none=False)："
              "每个 .grad 都是全零张量（原本没有梯度的叶子仍为 None）。",
    },
    "graph.rerun-busy": {
        "en": "A program is running in the workspace; wait for it first.",
        "zh": "工作区中有程序正在运行；请先等待它结束。",
    },
    "graph.rerun-handed-in": {
        "en": "Can't re-run on {device}: {names} was handed in (explore(), a file or the API), "
              "not made by a program here, so there is no program to re-run. Move it with "
              ".to('{device}') in the code bar instead.",
        "zh": "无法在 {device} 上重新运行：{names} 是直接传入的（explore()、文件或 API），"
              "不是这里的程序生成的，所以没有可重新运行的程序。"
              "请改为在代码栏中用 .to('{device}') 移动它。",
    },
    "graph.rerun-done": {
        "en": "Re-ran the program on {device}. This is a separate copy: the workspace keeps its "
              "own values; choose {home} to go back.",
        "zh": "已在 {device} 上重新运行程序。这是一份独立的副本：工作区保留自己的值；"
              "选择 {home} 即可回去。",
    },
    "graph.rerun-failed": {
        "en": "Could not re-run the program on {device}: {reason}",
        "zh": "无法在 {device} 上重新运行程序：{reason}",
    },
    "graph.back-home": {"en": "Back to the workspace's own values.", "zh": "回到工作区自己的值。"},
    "graph.check-no-leaves": {
        "en": "The numerical check needs leaves that are workspace values; this graph has none.",
        "zh": "数值检验需要作为工作区值的叶子张量；这张图没有。",
    },
    "graph.check-handed-in": {
        "en": "Can't run the numerical check: {names} was handed in, not made by a program here, "
              "so the program can't be re-run.",
        "zh": "无法进行数值检验：{names} 是直接传入的，不是这里的程序生成的，"
              "所以无法重新运行程序。",
    },
    "graph.check-too-big": {
        "en": "The numerical check is for small graphs: the leaves have {count} elements (at most "
              "{limit}).",
        "zh": "数值检验只适用于小图：叶子共有 {count} 个元素（最多 {limit} 个）。",
    },
    "graph.check-rerun-failed": {
        "en": "re-running the program failed: {error}",
        "zh": "重新运行程序失败：{error}",
    },
    "graph.check-not-run": {
        "en": "The numerical check could not run: {reason}",
        "zh": "数值检验无法运行：{reason}",
    },
    "graph.check-result": {
        "en": "Numerical check (finite differences in float64, eps={eps}): largest difference "
              "between autograd and numerical gradients {diff:.3e}{where} — {verdict}. Per leaf: "
              "{per_leaf}.",
        "zh": "数值检验（float64 有限差分，eps={eps}）："
              "autograd 梯度与数值梯度的最大差异为 {diff:.3e}{where} — {verdict}。各叶子："
              "{per_leaf}。",
    },
    "graph.check-passed": {"en": "passed", "zh": "通过"},
    "graph.check-failed": {"en": "FAILED", "zh": "未通过"},
    "graph.wait": {"en": "Wait: {what}", "zh": "请稍候：{what}"},
    "graph.job-failed": {"en": "{what} failed: {error}", "zh": "{what} 失败：{error}"},
    # what a job says while it runs (graph_session.Job.what)
    "graph.laying-out": {"en": "Laying out the graph…", "zh": "正在排布计算图…"},
    "graph.running-backward": {"en": "Running backward…", "zh": "正在运行 backward…"},
    "graph.rerunning": {"en": "Re-running on {device}…", "zh": "正在 {device} 上重新运行…"},
    "graph.checking": {"en": "Checking gradients numerically…", "zh": "正在用数值方法检验梯度…"},
    # --- (end of the graph pane's texts)
    # --- explanations of errors and warnings (core/explain.py) and the lesson checker's words
    # The Chinese follows the seed chapters' words (张量, 设备, 梯度, 计算图, 叶子张量, 视图, 连续,
    # 原地操作); code, function names and dtypes stay as they are written in Python. A "{more}"
    # field is "" or one of the sentences below it that the advice adds (a nested Message).
    "explain.device-mismatch": {
        "en": "The tensors in this operation live on different devices (for example one on the "
              "CPU and one on a GPU, or one on 'meta'). An operation runs on one device, so every "
              "operand must be there. Move them to one device at the batch boundary with "
              ".to(device): the model's parameters, the features and the labels must agree. "
              "Tensor.to() returns a tensor on that device (the same tensor when it is already "
              "there) and leaves the original where it was: use what it returns. Module.to() "
              "moves the module itself.",
        "zh": "这次运算用到的张量位于不同的设备上（例如一个在 CPU、一个在 GPU，"
              "或者有一个在 'meta' 上）。一次运算只在一个设备上执行，所以每个操作数都必须在那里。"
              "请在 batch 边界用 .to(device) 把它们放到同一个设备上：模型参数、features 和 labels "
              "的设备必须一致。注意 Tensor.to() 返回目标设备上的张量（本来就在那里时返回原张量），"
              "不会移动原来的那个，要用它的返回值；Module.to() 则原地移动模型本身。",
    },
    "explain.cross-entropy-target-dtype": {
        "en": "Cross-entropy wants class labels as integer class indices (torch.long), one per "
              "sample, but the labels here have another dtype. If they are class indices (whole "
              "numbers from 0 to classes - 1) and the logits are (batch, classes), make them "
              "with dtype=torch.long (or call labels.long()). If they are probabilities, .long() "
              "would cut them to wrong classes: float targets are only for class probabilities, "
              "with the same shape as the logits. Logits of shape (classes,) are a single "
              "sample: logits.unsqueeze(0) makes them (1, classes).",
        "zh": "交叉熵要求类别标签是整数类别索引（torch.long），每个样本一个，"
              "但这里的标签是别的 dtype。如果它们是类别索引（0 到 classes - 1 的整数），"
              "而且 logits 的形状是 (batch, classes)，请用 dtype=torch.long 创建标签"
              "（或者调用 labels.long()）。如果它们是概率，.long() 会把它们截成错误的类别："
              "只有表示类别概率时 target 才用浮点数，而且形状要与 logits 相同。"
              "形状为 (classes,) 的 logits 只是单个样本："
              "logits.unsqueeze(0) 把它变成 (1, classes)。",
    },
    "explain.cross-entropy-target-shape": {
        "en": "Cross-entropy expects logits of shape (batch, classes) and a target of shape "
              "(batch,) holding one class index per sample, each between 0 and classes - 1. "
              "Check that the target is not (batch, 1), that both have the same batch size, "
              "that no label is >= the number of classes, and that the logits are not 1-D: "
              "logits of shape (classes,) are a single sample (logits.unsqueeze(0) makes them "
              "(1, classes)).",
        "zh": "交叉熵要求 logits 的形状是 (batch, classes)，target 的形状是 (batch,)："
              "每个样本一个类别索引，取值在 0 到 classes - 1 之间。"
              "请检查 target 不是 (batch, 1)、两者的 batch 大小相同、没有标签 >= 类别数，"
              "并且 logits 不是一维的：形状为 (classes,) 的 logits 只是单个样本"
              "（logits.unsqueeze(0) 把它变成 (1, classes)）。",
    },
    "explain.cross-entropy-target-probabilities": {
        "en": "Cross-entropy read the target as class probabilities, because it has the same "
              "shape as the logits, and probabilities must be floating point. Usually the target "
              "holds class indices instead: then the logits must be (batch, classes), one row "
              "per sample (logits of shape (classes,) are a single sample: logits.unsqueeze(0)), "
              "and the target (batch,) of class indices (torch.long). Convert the target with "
              ".float() only if it really holds probabilities (one-hot rows, or rows summing to "
              "1): class indices made float run but give a wrong loss.",
        "zh": "交叉熵把 target 当作了类别概率，因为它的形状与 logits 相同，而概率必须是浮点数。"
              "通常 target 存放的是类别索引：这时 logits 的形状必须是 (batch, classes)，"
              "每个样本一行（形状为 (classes,) 的 logits 只是单个样本：用 logits.unsqueeze(0)），"
              "target 的形状是 (batch,)，存放类别索引（torch.long）。"
              "只有 target 确实是概率（one-hot 的行，或每行加起来等于 1）时才用 .float() 转换："
              "把类别索引转成浮点数虽然能运行，算出的 loss 却是错的。",
    },
    "explain.not-floating": {
        "en": "This operation needs floating-point numbers, but it got an integer tensor. A "
              "tensor made from a list of whole numbers (torch.tensor([1, 2])) is int64 (Long). "
              "Say dtype=torch.float32 when you create it, or convert with .float().",
        "zh": "这个运算需要浮点数，拿到的却是整数张量。由整数列表创建的张量"
              "（torch.tensor([1, 2])）是 int64（Long）。"
              "请在创建时写明 dtype=torch.float32，或者用 .float() 转换。",
    },
    "explain.dtype-mismatch": {
        "en": "The operands have different dtypes (for example Float and Long, or float32 and "
              "float64). torch does not convert them silently for this operation. Create them "
              "with the same dtype, or convert one with .to(other.dtype); features are usually "
              "float32, class labels long.",
        "zh": "操作数的 dtype 不同（例如 Float 和 Long，或者 float32 和 float64），"
              "这个运算不会悄悄帮你转换。请用相同的 dtype 创建它们，"
              "或者用 .to(other.dtype) 转换其中一个；特征通常是 float32，类别标签是 long。",
    },
    "explain.backward-twice": {
        "en": "backward() frees the values the graph saved, so the same graph cannot be walked "
              "again. Usually you want a fresh forward pass before each backward. If you really "
              "need to go through the same graph twice, pass retain_graph=True to the first "
              "backward() call.",
        "zh": "backward() 会释放计算图保存的中间值，所以同一张图不能再反向传播一次。"
              "通常应该在每次 backward 之前重新做一次前向计算。"
              "如果确实需要对同一张图反向传播两次，请在第一次调用 backward() 时传入 "
              "retain_graph=True。",
    },
    "explain.numpy-requires-grad": {
        "en": "This tensor is part of an autograd graph (it requires grad), and a NumPy array "
              "cannot carry that graph. Take it out of the graph first: "
              "tensor.detach().cpu().numpy().",
        "zh": "这个张量在 autograd 的计算图上（它需要梯度），而 NumPy 数组带不走这张图。"
              "请先把它从图中分离出来：tensor.detach().cpu().numpy()。",
    },
    "explain.numpy-device": {
        "en": "NumPy arrays live in CPU memory, and this tensor is on another device. Copy it to "
              "the CPU first: tensor.detach().cpu().numpy().",
        "zh": "NumPy 数组存放在 CPU 内存里，而这个张量在另一个设备上。"
              "请先把它复制到 CPU：tensor.detach().cpu().numpy()。",
    },
    "explain.view-non-contiguous": {
        "en": "view() only re-reads the same memory with a new shape, and this tensor's elements "
              "are not laid out in the order the new shape needs (it is not contiguous, e.g. "
              "after t(), transpose or permute). Use reshape(), which copies when it must, or "
              "call contiguous() first (that also copies).",
        "zh": "view() 只是用新形状重新解读同一块内存，而这个张量的元素在内存里的排列顺序"
              "不符合新形状的要求（它不连续，例如经过 t()、transpose 或 permute 之后）。"
              "请改用 reshape()（必要时会复制），或者先调用 contiguous()（这也会复制）。",
    },
    "explain.inplace-leaf": {
        "en": "You changed in place a leaf tensor that requires grad (a parameter, or a tensor "
              "made with requires_grad=True). autograd cannot record that. Update parameters "
              "inside 'with torch.no_grad():' (that is what an optimizer does), or compute a new "
              "tensor out of place instead.",
        "zh": "你原地修改了一个需要梯度的叶子张量"
              "（模型参数，或者用 requires_grad=True 创建的张量），"
              "autograd 无法记录这种修改。请在 'with torch.no_grad():' 里更新参数"
              "（optimizer 就是这样做的），或者改用非原地操作算出一个新张量。",
    },
    "explain.inplace-saved": {
        "en": "A tensor that autograd saved during the forward pass was changed in place "
              "afterwards (it is now at version {now}, but backward needs the version {saved} it "
              "saw). Every in-place operation (a method ending in '_', x[...] = ..., +=) bumps a "
              "tensor's version counter. Make the change out of place (y = y + 1), or clone() the "
              "tensor before changing it, or change it only after backward.",
        "zh": "autograd 在前向计算时保存的一个张量，之后被原地修改了"
              "（它现在是版本 {now}，而 backward 需要它被保存时的版本 {saved}）。"
              "每次原地操作（以 '_' 结尾的方法、x[...] = ...、+=）都会让张量的版本计数加一。"
              "请改用非原地的写法（y = y + 1），或者在修改前先 clone() 一份，"
              "或者等 backward 之后再修改。",
    },
    "explain.matmul-shape": {
        "en": "Matrix multiplication needs the inner sizes to agree: (n, k) @ (k, m) gives "
              "(n, m). Here the last size of the left operand differs from the first size of the "
              "right one. For nn.Linear(in_features, out_features) the input's last size must be "
              "in_features. Check the operands' shapes below.",
        "zh": "矩阵乘法要求内侧的两个维度大小一致：(n, k) @ (k, m) 得到 (n, m)。"
              "这里左操作数最后一维的大小和右操作数第一维的大小不同。"
              "对于 nn.Linear(in_features, out_features)，输入最后一维的大小必须是 in_features。"
              "请对照下面列出的操作数形状检查。",
    },
    "explain.broadcast-shape": {
        "en": "Broadcasting compares shapes from the last dimension backwards: two sizes fit "
              "when they are equal or one of them is 1. Here one dimension has two different "
              "sizes, neither 1. Reshape or unsqueeze one operand (e.g. b.unsqueeze(1)) so that "
              "the sizes line up as you mean them.",
        "zh": "广播从尾部维度向前比较形状：两个维度相等，或者其中一个为 1，才能广播。"
              "这里有一个维度的两个大小不同，而且都不是 1。"
              "请对其中一个操作数做 reshape 或 unsqueeze（例如 b.unsqueeze(1)），"
              "让各个维度按你的本意对齐。",
    },
    "explain.backward-non-scalar": {
        "en": "backward() without arguments needs a single number (a scalar loss). For a tensor "
              "with several elements pass the upstream gradient of the same shape, e.g. "
              "y.backward(torch.ones_like(y)), or reduce it first (y.sum().backward()).",
        "zh": "不带参数的 backward() 需要一个单独的数（标量 loss）。"
              "对有多个元素的张量，请传入同形状的上游梯度，例如 "
              "y.backward(torch.ones_like(y))，或者先把它归约成标量（y.sum().backward()）。",
    },
    "explain.backward-no-grad": {
        "en": "This tensor is not connected to any autograd graph, so there is nothing to "
              "differentiate. It was made by detach(), under torch.no_grad() or "
              "torch.inference_mode(), or from tensors none of which has requires_grad=True.",
        "zh": "这个张量没有连接到任何 autograd 计算图，所以没有东西可以求导。"
              "它是由 detach() 得到的，或者是在 torch.no_grad() 或 torch.inference_mode() "
              "下算出来的，或者算出它的张量都没有 requires_grad=True。",
    },
    "explain.inference-tensor": {
        "en": "A tensor made under torch.inference_mode() is used in a computation that autograd "
              "records. Inference tensors never join a graph. Make it under torch.no_grad() "
              "instead, or use tensor.clone() outside inference mode to get a normal tensor.",
        "zh": "一个在 torch.inference_mode() 下创建的张量被用在了 autograd 要记录的计算里。"
              "这种推理张量永远不会加入计算图。请改在 torch.no_grad() 下创建它，"
              "或者在 inference_mode 之外用 tensor.clone() 得到一个普通张量。",
    },
    "explain.inference-inplace": {
        "en": "This tensor was made under torch.inference_mode(), and an inference tensor can "
              "never be changed in place outside inference mode (a method ending in '_', "
              "x[...] = ..., +=): torch keeps no version counter for it, so it could not tell "
              "whether something still needs the old values. Make a normal copy first and change "
              "the copy: {name} = {name}.clone() (outside inference_mode); or do the write inside "
              "'with torch.inference_mode():'. A tensor made under torch.no_grad() instead is a "
              "normal tensor and can be changed in place later.",
        "zh": "这个张量是在 torch.inference_mode() 下创建的推理张量，而推理张量在 inference_mode "
              "之外永远不能被原地修改（以 '_' 结尾的方法、x[...] = ...、+=）：torch 不为它记录"
              "版本计数，无法判断是否还有地方需要旧的值。请先复制出一个普通张量，再修改这份副本："
              "{name} = {name}.clone()（在 inference_mode 之外）；或者把这次写入放到 "
              "'with torch.inference_mode():' 里面。改在 torch.no_grad() 下创建的张量是普通张量，"
              "之后可以原地修改。",
    },
    "explain.inference-grad": {
        "en": "This tensor was made under torch.inference_mode(), and an inference tensor can "
              "never require grad: it can never join an autograd graph. Make a normal copy that "
              "does: {name} = {name}.clone().requires_grad_() (outside inference_mode), or create "
              "the tensor under torch.no_grad() instead.",
        "zh": "这个张量是在 torch.inference_mode() 下创建的推理张量，而推理张量永远不能需要梯度，"
              "也就永远不能加入 autograd 计算图。请复制出一个可以需要梯度的普通张量："
              "{name} = {name}.clone().requires_grad_()（在 inference_mode 之外），"
              "或者改在 torch.no_grad() 下创建这个张量。",
    },
    "explain.item-non-scalar": {
        "en": "item() and float() turn a tensor with exactly one element into a Python number; "
              "this tensor has more. Reduce it first (sum(), mean()) or index one element, or "
              "use tolist() for all of them.",
        "zh": "item() 和 float() 只能把恰好只有一个元素的张量转成 Python 数字，"
              "而这个张量的元素不止一个。请先归约（sum()、mean()）或用索引取出一个元素；"
              "要得到全部元素请用 tolist()。",
    },
    "explain.ambiguous-bool": {
        "en": "An if/while/and/or needs one True or False, but the tensor has many elements. "
              "Say which you mean: .all() (every element) or .any() (at least one).",
        "zh": "if/while/and/or 需要一个 True 或 False，但这个张量有多个元素。"
              "请写明你的意思：.all()（每个元素都为真）或 .any()（至少有一个为真）。",
    },
    "explain.inplace-overlap": {
        "en": "The tensor written to is a view in which several elements share the same memory "
              "(for example made by expand()), so an in-place write would be ambiguous. clone() "
              "it first to get a tensor that owns separate memory.",
        "zh": "被写入的张量是一个视图，它的多个元素共享同一块内存（例如由 expand() 得到），"
              "所以原地写入的结果是不确定的。请先 clone() 一份，得到拥有独立内存的张量。",
    },
    "explain.device-unavailable": {
        "en": "The device asked for does not exist on this machine. Use "
              "torch.device('cuda' if torch.cuda.is_available() else 'cpu'), or one of the "
              "devices listed by the app's device chooser.",
        "zh": "这台机器上没有所请求的设备。请用 "
              "torch.device('cuda' if torch.cuda.is_available() else 'cpu')，"
              "或者选择本应用设备选择框里列出的设备。",
    },
    "explain.out-of-memory": {
        "en": "There is not enough memory for this tensor. Use a smaller shape or batch, free "
              "tensors you no longer need (del x), or compute under torch.no_grad() so that no "
              "graph is kept.",
        "zh": "内存不够放下这个张量。请用更小的形状或 batch，释放不再需要的张量（del x），"
              "或者在 torch.no_grad() 下计算，这样就不会保留计算图。",
    },
    "explain.not-available": {
        "en": "{name}() is not available in the restricted runner: lessons and programs may not "
              "open files, run code from strings or reach Python internals.",
        "zh": "{name}() 在受限运行器里不可用：课程和程序不能打开文件、"
              "不能执行写在字符串里的代码，也不能访问 Python 的内部机制。",
    },
    "explain.not-defined": {
        "en": "{name} has no value yet. Run the statement that makes it first, or check the "
              "spelling (names are case-sensitive).",
        "zh": "{name} 还没有值。请先运行创建它的语句，或者检查拼写（名字区分大小写）。",
    },
    "explain.this-name": {"en": "this name", "zh": "这个名字"},
    "explain.recursion": {
        "en": "A function called itself (directly or through others) too many times without "
              "stopping. Check the condition that should end the recursion.",
        "zh": "一个函数（直接或通过别的函数）调用自己的次数太多，一直停不下来。"
              "请检查本应结束递归的条件。",
    },
    # cross-entropy advice from the logits and the target torch got (explain._ce_one_sample,
    # explain._ce_batch); {logits} and {target} are the learner's names for them
    "explain.ce-one-sample": {
        "en": "{logits} is 1-D, shape ({classes},): cross-entropy wants logits of shape "
              "(batch, classes) and a target of shape (batch,) holding one class index per "
              "sample, as torch.long. Here that is one sample with {classes} classes: give it "
              "a batch dimension and make the label a long class index: "
              "F.cross_entropy({logits}.unsqueeze(0), {target}.reshape(1).long()) "
              "(logits (1, {classes}), target (1,)).",
        "zh": "{logits} 是一维的，形状为 ({classes},)："
              "交叉熵要求 logits 的形状是 (batch, classes)，"
              "target 的形状是 (batch,)，每个样本一个 torch.long 类型的类别索引。"
              "这里是一个有 {classes} 个类别的样本：请给它加上 batch 维，"
              "并把标签转成 long 类型的类别索引："
              "F.cross_entropy({logits}.unsqueeze(0), {target}.reshape(1).long())"
              "（logits 为 (1, {classes})，target 为 (1,)）。",
    },
    "explain.ce-one-row-many-labels": {
        "en": "{logits} is 1-D, shape ({classes},), so cross-entropy reads it as the scores of a "
              "single sample over {classes} classes, but {target} holds {n} labels, one per "
              "sample. Logits must be (batch, classes): one row of class scores per sample, here "
              "({n}, classes), with {target} of shape ({n},) holding class indices (torch.long). "
              "Make the model give one row per sample (for a single sample, "
              "{logits}.unsqueeze(0) gives (1, {classes}) and the target is one class index)."
              "{more}",
        "zh": "{logits} 是一维的，形状为 ({classes},)，所以交叉熵把它当作单个样本在 {classes} "
              "个类别上的分数；而 {target} 有 {n} 个标签，每个样本一个。logits 的形状必须是 "
              "(batch, classes)：每个样本一行类别分数，这里应为 ({n}, classes)，{target} 的形状为 "
              "({n},)，存放类别索引（torch.long）。请让模型为每个样本给出一行"
              "（只有一个样本时，{logits}.unsqueeze(0) 得到 (1, {classes})，"
              "target 是一个类别索引）。"
              "{more}",
    },
    "explain.ce-not-float": {
        "en": " Do not convert {target} with .float(): a float target of the logits' shape is "
              "read as class probabilities, so that runs but gives a wrong loss.{more}",
        "zh": "不要用 .float() 转换 {target}：与 logits 形状相同的浮点 target 会被当作类别概率，"
              "这样虽然能运行，算出的 loss 却是错的。{more}",
    },
    "explain.ce-yes-no": {
        "en": " If {logits} holds one score per sample for a yes/no label, use "
              "F.binary_cross_entropy_with_logits({logits}, {target}.float()) instead, or give "
              "two scores per sample, shape ({n}, 2).",
        "zh": "如果 {logits} 是每个样本在“是/否”问题上的一个分数，请改用 "
              "F.binary_cross_entropy_with_logits({logits}, {target}.float())，"
              "或者为每个样本给出两个分数，形状为 ({n}, 2)。",
    },
    "explain.ce-indices-not-long": {
        "en": "Cross-entropy wants class labels as integer class indices (torch.long), one per "
              "sample, but {target} is {dtype}. Its values are whole numbers from 0 to {last}, "
              "so they are class indices: convert with {target}.long() (or make it with "
              "dtype=torch.long). Float targets are only for class probabilities, with the same "
              "shape as the logits.",
        "zh": "交叉熵要求类别标签是整数类别索引（torch.long），每个样本一个，"
              "但 {target} 的 dtype 是 {dtype}。它的值都是 0 到 {last} 之间的整数，"
              "所以它们是类别索引：请用 {target}.long() 转换（或者用 dtype=torch.long 创建）。"
              "只有表示类别概率时 target 才用浮点数，而且形状要与 logits 相同。",
    },
    "explain.ce-fractions": {
        "en": "{target} has one value per sample, shape {shape}, but its values are fractions "
              "(such as {example}), not class indices, so {target}.long() would cut them to "
              "wrong classes ({example} becomes {cut}) and the loss would be wrong. "
              "Cross-entropy takes either class indices (shape (batch,), whole numbers from 0 to "
              "{last}, torch.long) or class probabilities (float, the same shape as the logits "
              "{logits_shape}, each row summing to 1).{more}",
        "zh": "{target} 每个样本一个值，形状为 {shape}，但它的值是小数（例如 {example}），"
              "不是类别索引，所以 {target}.long() 会把它们截成错误的类别（{example} 变成 {cut}），"
              "算出的 loss 是错的。交叉熵的 target 要么是类别索引：形状为 (batch,)，"
              "取值为 0 到 {last} 的整数，dtype 为 torch.long；要么是类别概率：浮点数，"
              "形状与 logits 的 {logits_shape} 相同，每一行加起来等于 1。{more}",
    },
    "explain.ce-probability-of-class-1": {
        "en": " If {target} is the probability of class 1, the class probabilities are "
              "torch.stack([1 - {target}, {target}], dim=1).",
        "zh": "如果 {target} 表示属于类别 1 的概率，对应的类别概率是 "
              "torch.stack([1 - {target}, {target}], dim=1)。",
    },
    "explain.ce-bad-labels": {
        "en": "Cross-entropy wants class labels as integer class indices (torch.long), one per "
              "sample, from 0 to {last} for these {classes} classes, but {target} is {dtype} and "
              "holds {shown}. Check the labels and the number of classes (the logits' size in "
              "dimension 1, {classes}) first; then make the labels torch.long.{more}",
        "zh": "交叉熵要求类别标签是整数类别索引（torch.long），每个样本一个，"
              "对这 {classes} 个类别取值为 0 到 {last}，但 {target} 的 dtype 是 {dtype}，"
              "并且含有 {shown}。请先检查标签和类别数（logits 第 1 维的大小，{classes}），"
              "再把标签转成 torch.long。{more}",
    },
    "explain.ce-counted-from-1": {
        "en": " Labels counted from 1 become class indices with ({target} - 1).long().",
        "zh": "从 1 开始编号的标签可以用 ({target} - 1).long() 变成类别索引。",
    },
    "explain.ce-probabilities-not-float": {
        "en": "{target} has the same shape as the logits, {shape}, so cross-entropy reads it as "
              "class probabilities, which must be floating point; but {target} is {dtype}."
              "{more}",
        "zh": "{target} 的形状与 logits 相同，都是 {shape}，所以交叉熵把它当作类别概率，"
              "而概率必须是浮点数；但 {target} 的 dtype 是 {dtype}。{more}",
    },
    "explain.ce-one-hot": {
        "en": " Its rows are one-hot, so the class indices are {target}.argmax(dim=1) (shape "
              "{index_shape}, torch.long), what cross-entropy usually takes; {target}.float() "
              "gives the same loss.",
        "zh": "它的每一行都是 one-hot，所以类别索引就是 {target}.argmax(dim=1)"
              "（形状 {index_shape}，torch.long），这是交叉熵通常使用的形式；"
              "{target}.float() 得到的 loss 相同。",
    },
    "explain.ce-not-one-hot": {
        "en": " Its rows are not one-hot, so they are not probabilities as they are. If it "
              "should hold one class index per sample, its shape is {index_shape}; if it holds "
              "counts, probabilities are {target}.float() / {target}.sum(dim=1, keepdim=True).",
        "zh": "它的行不是 one-hot，本身并不是概率。如果它应当为每个样本存放一个类别索引，"
              "形状应为 {index_shape}；如果它存放的是计数，对应的概率是 "
              "{target}.float() / {target}.sum(dim=1, keepdim=True)。",
    },
    "explain.ce-column": {
        "en": "{target} has shape {shape}: one column, but cross-entropy wants one class index "
              "per sample in a target of shape {index_shape}, that is (batch,). Remove the "
              "column: {fix}.",
        "zh": "{target} 的形状是 {shape}：只有一列，而交叉熵要求 target 的形状是 "
              "{index_shape}，即 (batch,)，每个样本一个类别索引。请去掉这一列：{fix}。",
    },
    # plain words for warnings torch or NumPy raise (explain.explain_warning)
    "explain.warning-non-leaf-grad": {
        "en": "This tensor is computed from others (not a leaf), so backward() does not keep its "
              "gradient and .grad is None. Call .retain_grad() on it before backward() if you "
              "want it, or read .grad of the leaf tensors (those you made with "
              "requires_grad=True).",
        "zh": "这个张量是由其他张量算出来的（不是叶子张量），所以 backward() 不会保留它的梯度，"
              ".grad 是 None。如果需要它的梯度，请在 backward() 之前对它调用 .retain_grad()，"
              "或者读取叶子张量（你用 requires_grad=True 创建的那些）的 .grad。",
    },
    "explain.warning-typed-storage": {
        "en": "tensor.storage() is the old API; tensor.untyped_storage() shows the same bytes.",
        "zh": "tensor.storage() 是旧的 API；tensor.untyped_storage() 显示的是同样的字节。",
    },
    "explain.warning-read-only-array": {
        "en": "The NumPy array is read-only, and the tensor made from it shares its memory; "
              "writing to the tensor would be undefined. Copy it first (array.copy()).",
        "zh": "这个 NumPy 数组是只读的，而由它创建的张量与它共享内存；"
              "写入这个张量的结果是未定义的。请先复制一份（array.copy()）。",
    },
    # the lesson checker (lessons.py), when an expectation cannot be tested
    "checker.meta-no-values": {
        "en": "a meta tensor has no values to test",
        "zh": "meta 张量没有可以检验的值",
    },
    # --- (end of explanations)
    # --- the Inspector's diagnoses (core/diagnose.py): a title, then what it means and what
    # to do
    "diagnose.nonfinite.title": {
        "en": "NaN or Inf values",
        "zh": "含有 NaN 或 Inf",
    },
    "diagnose.nonfinite": {
        "en": "{bad:,} of {count:,} values are not finite ({parts}); the first is at index "
              "{first}. A loss computed from them will be NaN: look for a division by zero, log "
              "of 0 or a negative number, an overflow in float16, or a learning rate too high.",
        "zh": "{count:,} 个值中有 {bad:,} 个不是有限数（{parts}）；第一个位于下标 {first}。由它们"
              "算出的 loss 会是 NaN：检查是否除以零、对 0 或负数取 log、float16 溢出，或学习率过"
              "大。",
    },
    "diagnose.meta-device.title": {
        "en": "On the meta device: no values",
        "zh": "在 meta 设备上：没有数值",
    },
    "diagnose.meta-device": {
        "en": "This tensor is on the 'meta' device: it has a shape and dtype but no values. "
              "Mixing it with tensors on other devices fails like a CPU/CUDA mismatch does.",
        "zh": "这个张量在 'meta' 设备上：只有形状和 dtype，没有数值。把它和其他设备上的张量混用，"
              "会像 CPU/CUDA 不匹配一样报错。",
    },
    "diagnose.inference-tensor.title": {
        "en": "Made in inference mode",
        "zh": "在 inference_mode 下创建",
    },
    "diagnose.inference-tensor": {
        "en": "This tensor was made under torch.inference_mode(): it can never enter autograd. "
              "Using it in a computation that needs gradients fails; clone() it outside "
              "inference_mode, or use torch.no_grad() instead.",
        "zh": "这个张量是在 torch.inference_mode() 下创建的：永远不能进入 autograd。在需要梯度的"
              "计算中使用它会报错；请在 inference_mode 之外 clone() 一份，或改用 torch.no_grad()"
              "。",
    },
    "diagnose.internal-overlap.title": {
        "en": "Elements share memory",
        "zh": "元素共享内存",
    },
    "diagnose.internal-overlap": {
        "en": "Several elements of this value share the same memory (as after expand() or "
              "broadcast_to): an in-place write would change all of them at once, and torch "
              "refuses most in-place operations on it. Use .clone() (or .contiguous()) to get "
              "independent elements first.",
        "zh": "这个值的多个元素共享同一块内存（例如 expand() 或 broadcast_to 之后）：原地写入会同"
              "时改变它们，torch 也会拒绝大多数原地操作。请先用 .clone()（或 .contiguous()）得到"
              "彼此独立的元素。",
    },
    "diagnose.non-contiguous.title": {
        "en": "Not contiguous: view() fails",
        "zh": "不连续：view() 会失败",
    },
    "diagnose.non-contiguous": {
        "en": "Not contiguous (stride {stride} for shape {shape}), as after t(), permute() or a "
              "step slice: .view() with a new shape will fail. Use .reshape(), or .contiguous() "
              "first.",
        "zh": "不连续（形状 {shape} 的步长为 {stride}），例如 t()、permute() 或带步长的切片之后："
              "用 .view() 改变形状会失败。请用 .reshape()，或先调用 .contiguous()。",
    },
    "diagnose.grad-none-no-requires-grad.title": {
        "en": "No gradient: requires_grad is False",
        "zh": "没有梯度：requires_grad 为 False",
    },
    "diagnose.grad-none-no-requires-grad": {
        "en": ".grad is None and will stay None: requires_grad is False, so autograd does not "
              "track this tensor. Create it with requires_grad=True (or call .requires_grad_()) "
              "if you want its gradient.",
        "zh": ".grad 是 None，并且会一直是 None：requires_grad 为 False，autograd 不跟踪这个张量"
              "。如果需要它的梯度，请用 requires_grad=True 创建（或调用 .requires_grad_()）。",
    },
    "diagnose.grad-none-not-leaf.title": {
        "en": "No .grad: not a leaf",
        "zh": "没有 .grad：不是叶子张量",
    },
    "diagnose.grad-none-not-leaf": {
        "en": ".grad is None because this tensor is not a leaf: it was computed "
              "(grad_fn={grad_fn}), and backward() only fills .grad of leaves. Call "
              ".retain_grad() on it before backward() to keep its gradient.",
        "zh": ".grad 是 None，因为这个张量不是叶子：它是计算得到的（grad_fn={grad_fn}），而 "
              "backward() 只填充叶子张量的 .grad。若要保留它的梯度，请在 backward() 之前调用 "
              ".retain_grad()。",
    },
    "diagnose.grad-none-no-backward.title": {
        "en": "No .grad yet: no backward() reached it",
        "zh": "还没有 .grad：backward() 尚未传到",
    },
    "diagnose.grad-none-no-backward": {
        "en": ".grad is None because no backward() has reached this tensor yet (or its gradient "
              "was reset with zero_grad(set_to_none=True)). Run loss.backward() on a result "
              "computed from it.",
        "zh": ".grad 是 None，因为还没有 backward() 传到这个张量（或梯度已被 "
              "zero_grad(set_to_none=True) 清空）。请对由它计算出的结果调用 loss.backward()。",
    },
    "diagnose.integer-features.title": {
        "en": "Integer features",
        "zh": "特征是整数类型",
    },
    "diagnose.integer-features": {
        "en": "These look like model inputs (features) but the dtype is {dtype}: layers such as "
              'nn.Linear expect floating point and fail with "expected scalar type Float". '
              "Convert with .float() (or dtype=torch.float32 when creating it).",
        "zh": "这看起来是模型输入（特征），但 dtype 是 {dtype}：nn.Linear 等层需要浮点数，否则报"
              '错 "expected scalar type Float"。请用 .float() 转换（或创建时指定 '
              "dtype=torch.float32）。",
    },
    "diagnose.float-labels.title": {
        "en": "Float class labels",
        "zh": "类别标签是浮点类型",
    },
    "diagnose.float-labels": {
        "en": "These look like class labels but the dtype is {dtype}: cross_entropy with class "
              "indices expects int64 (torch.long) labels of shape (batch,). Convert with "
              ".long(); keep float only for probabilities/soft targets of shape (batch, classes).",
        "zh": "这看起来是分类标签，但 dtype 是 {dtype}：使用类别下标的 cross_entropy 需要形状为 "
              "(batch,) 的 int64（torch.long）标签。请用 .long() 转换；只有形状为 (batch, "
              "classes) 的概率/软标签才用浮点。",
    },
    "diagnose.labels-not-long.title": {
        "en": "Labels are not int64",
        "zh": "标签不是 int64",
    },
    "diagnose.labels-not-long": {
        "en": "Class labels are {dtype}; cross_entropy expects int64 (torch.long) and fails with "
              '"expected target dtype to be Long". Convert with .long().',
        "zh": '类别标签是 {dtype}；cross_entropy 需要 int64（torch.long），否则报错 "expected '
              'target dtype to be Long"。请用 .long() 转换。',
    },

    # --- why a value shares memory, from how it was made (core/memory.py: sharing_reason);
    # sharing.made-by takes one of the sharing.* phrases (each starts with 'which')
    "sharing.made-by": {
        "en": "`{name}` was made by `{text}`, {phrase}",
        "zh": "`{name}` 由 `{text}` 得到，{phrase}",
    },
    "sharing.with-numpy-array": {
        "en": "which shares memory with the NumPy array",
        "zh": "它与 NumPy 数组共享内存",
    },
    "sharing.with-buffer": {
        "en": "which shares memory with the buffer",
        "zh": "它与缓冲区共享内存",
    },
    "sharing.with-tensor": {"en": "which shares memory with the tensor", "zh": "它与张量共享内存"},
    "sharing.if-dtype-device-match": {
        "en": "which shares memory when dtype and device already match, else copies",
        "zh": "dtype 和设备都已一致时共享内存，否则复制",
    },
    "sharing.when-it-can": {
        "en": "which shares memory when it can, else copies",
        "zh": "能共享时共享内存，否则复制",
    },
    "sharing.when-layout-allows": {
        "en": "which shares memory when the layout allows, else copies",
        "zh": "内存布局允许时共享内存，否则复制",
    },
    "sharing.if-contiguous": {
        "en": "which shares memory if already contiguous, else copies",
        "zh": "如果已经连续就共享内存，否则复制",
    },
    "sharing.detached": {
        "en": "which shares memory (a new tensor on the same storage, cut from autograd)",
        "zh": "它共享内存（同一存储上的新张量，与自动微分断开）",
    },
    "sharing.view": {"en": "which shares memory (a view)", "zh": "它共享内存（一个视图）"},
    "sharing.views": {"en": "which shares memory (views)", "zh": "它共享内存（多个视图）"},
    "sharing.transposed-view": {
        "en": "which shares memory (a transposed view)",
        "zh": "它共享内存（转置的视图）",
    },
    "sharing.permuted-view": {
        "en": "which shares memory (a permuted view)",
        "zh": "它共享内存（维度重排的视图）",
    },
    "sharing.diagonal-view": {
        "en": "which shares memory (a view of the diagonal)",
        "zh": "它共享内存（对角线的视图）",
    },
    "sharing.real-view": {
        "en": "which shares memory (a view of the real parts)",
        "zh": "它共享内存（实部的视图）",
    },
    "sharing.imag-view": {
        "en": "which shares memory (a view of the imaginary parts)",
        "zh": "它共享内存（虚部的视图）",
    },
    "sharing.strided-view": {
        "en": "which shares memory (a view with the given strides)",
        "zh": "它共享内存（按给定步长的视图）",
    },
    "sharing.windows": {
        "en": "which shares memory (overlapping windows when step < size)",
        "zh": "它共享内存（step < size 时窗口相互重叠）",
    },
    "sharing.basic-indexing": {
        "en": "which shares memory (slicing and integer indexing make views)",
        "zh": "它共享内存（切片和整数索引得到视图）",
    },
    "sharing.expanded": {
        "en": "which shares memory: expanded axes have stride 0, "
              "so many elements read the same bytes",
        "zh": "它共享内存：expand 出的轴步长为 0，所以许多元素读取同一组字节",
    },
    "sharing.expanded-as": {
        "en": "which shares memory: expanded axes have stride 0",
        "zh": "它共享内存：expand 出的轴步长为 0",
    },
    "sharing.broadcast": {
        "en": "which shares memory: broadcast axes have stride 0",
        "zh": "它共享内存：广播出的轴步长为 0",
    },
    "sharing.advanced-indexing": {
        "en": "which may copy (indexing with a list, tensor or mask copies)",
        "zh": "它可能会复制（用列表、张量或掩码做索引会复制）",
    },
    "sharing.copies": {"en": "which copies", "zh": "它会复制"},
    "sharing.copies-by-default": {
        "en": "which copies (copy=True by default)",
        "zh": "它会复制（默认 copy=True）",
    },
    "sharing.copies-unless-copy-false": {
        "en": "which copies (unless copy=False and the dtype already matches)",
        "zh": "它会复制（除非 copy=False 且 dtype 已经一致）",
    },
    "sharing.copies-if-dtype-device-change": {
        "en": "which copies when dtype or device change, else returns the same tensor",
        "zh": "dtype 或设备改变时它会复制，否则返回同一个张量",
    },
    "sharing.copies-unless-on-cpu": {
        "en": "which copies unless the tensor is already on the CPU",
        "zh": "除非张量已经在 CPU 上，否则它会复制",
    },
    "sharing.copies-unless-on-device": {
        "en": "which copies unless the tensor is already on that device",
        "zh": "除非张量已经在那个设备上，否则它会复制",
    },
    "sharing.copies-unless-float32": {
        "en": "which copies unless the dtype is already float32",
        "zh": "除非 dtype 已经是 float32，否则它会复制",
    },
    "sharing.copies-unless-float64": {
        "en": "which copies unless the dtype is already float64",
        "zh": "除非 dtype 已经是 float64，否则它会复制",
    },
    "sharing.copies-unless-int32": {
        "en": "which copies unless the dtype is already int32",
        "zh": "除非 dtype 已经是 int32，否则它会复制",
    },
    "sharing.copies-unless-int64": {
        "en": "which copies unless the dtype is already int64",
        "zh": "除非 dtype 已经是 int64，否则它会复制",
    },
    "sharing.computes-new-value": {
        "en": "which computes a new value in new memory",
        "zh": "它在新的内存里算出一个新值",
    },
    "sharing.makes-new-value": {
        "en": "which makes a new value in new memory",
        "zh": "它在新的内存里创建一个新值",
    },
    # --- autograd's errors and reasons (core/autograd.py: BackwardError, no_graph_reason)
    # why a tensor has no graph (no_graph_reason; BackwardError code no_graph)
    "autograd.not-a-tensor": {
        "en": "Expected a torch.Tensor with a grad_fn, got {cls}.",
        "zh": "需要一个带 grad_fn 的 torch.Tensor，拿到的却是 {cls}。",
    },
    "autograd.no-graph-inference": {
        "en": "This tensor was made inside torch.inference_mode(), so autograd recorded nothing: "
              "it has no grad_fn and no graph to trace or backpropagate through. Compute it "
              "outside inference_mode (with inputs that require grad) to get a graph.",
        "zh": "这个张量是在 torch.inference_mode() 里创建的，autograd 什么也没有记录：它没有 "
              "grad_fn，也没有可以追踪或反向传播的计算图。请在 inference_mode "
              "之外（用需要梯度的输入）计算它，才会得到计算图。",
    },
    "autograd.no-graph-leaf": {
        "en": "This tensor is a leaf (created directly, requires_grad=True): there is no graph "
              "behind it. Its gradient accumulates in .grad when something computed from it "
              "calls backward; trace or backpropagate from that result instead.",
        "zh": "这个张量是叶子张量（直接创建，requires_grad=True）：它背后没有计算图。"
              "由它算出的结果调用 backward 时，梯度会累积到它的 .grad 里；"
              "请改为从那个结果追踪或反向传播。",
    },
    "autograd.no-graph-constant": {
        "en": "This tensor does not require grad and has no grad_fn: it was made under "
              "torch.no_grad(), by .detach(), or only from tensors that do not require grad, so "
              "gradient stops here. Build it from a tensor with requires_grad=True, outside "
              "no_grad.",
        "zh": "这个张量不需要梯度，也没有 grad_fn：它是在 torch.no_grad() 下算出来的、由 "
              ".detach() 得到的，或者只由不需要梯度的张量算出来的，所以梯度到这里就停了。请在 "
              "no_grad 之外，从 requires_grad=True 的张量开始构建它。",
    },
    # torch's backward errors in plain words (_explain)
    "autograd.backward-twice": {
        "en": "This graph was already used by a backward call, which freed the tensors autograd "
              "had saved for it. Pass retain_graph=True to the earlier backward call to keep "
              "them (needed to call backward on the same graph again), or recompute the forward "
              "pass to build a fresh graph.",
        "zh": "这张计算图已经被一次 backward 调用用过了，那次调用释放了 autograd 为它保存的张量。"
              "请在之前那次 backward 调用里传入 retain_graph=True "
              "来保留它们（要在同一张图上再次调用 backward 就需要这样），或者重新做一次前向计算，"
              "构建一张新图。",
    },
    "autograd.stale-saved": {
        "en": "A tensor that autograd saved for the backward pass was changed in place after it "
              "was saved{where}.{versions} Backward needs the saved value, so it cannot go on. "
              "Use an out-of-place operation (y = y + 1 instead of y += 1 or y.add_(1)), or "
              "clone() the tensor before changing it.",
        "zh": "autograd 为反向传播保存的一个张量{where}在保存之后被原地修改了。{versions}"
              "反向传播需要保存时的值，所以无法继续。请改用非原地操作（用 y = y + 1 代替 y += 1 "
              "或 y.add_(1)），或者在修改前先 clone() 这个张量。",
    },
    # {where} and {versions} of autograd.stale-saved (each may be empty)
    "autograd.stale-where": {"en": " ({node} saved '{name}')", "zh": "（{node} 保存的 '{name}'）"},
    "autograd.stale-versions": {
        "en": " It is at version {now}, but autograd saved version {saved}.",
        "zh": "它现在是版本 {now}，而 autograd 保存的是版本 {saved}。",
    },
    "autograd.non-scalar": {
        "en": "backward() without a gradient works only for a scalar (one-element) result. Pass "
              "gradient= a tensor of the root's shape (for example torch.ones_like(root)).",
        "zh": "不传 gradient 的 backward() 只适用于标量（只有一个元素）的结果。"
              "请把一个与根同形状的张量传给 gradient=（例如 torch.ones_like(root)）。",
    },
    "autograd.bad-gradient": {
        "en": "The gradient passed to backward must have the same shape, dtype and device as the "
              "tensor backward starts from.",
        "zh": "传给 backward 的梯度必须与 backward 起点的张量有相同的形状、dtype 和设备。",
    },
    "autograd.no-grad-fn": {
        "en": "This tensor has no grad_fn: it was made without tracking gradients, so there is "
              "nothing to backpropagate through.",
        "zh": "这个张量没有 grad_fn：它是在不跟踪梯度的情况下创建的，"
              "所以没有可以反向传播的计算图。",
    },
    "autograd.failed": {"en": "backward failed.", "zh": "backward 失败了。"},
    # what backward() checks before torch runs
    "autograd.root-shape": {
        "en": "The root has shape {shape}, not a single number, so backward needs gradient=: a "
              "tensor of that same shape (for example torch.ones_like(root)) that weights each "
              "element.",
        "zh": "根的形状是 {shape}，不是单个数，所以 backward 需要 gradient=："
              "一个同样形状的张量（例如 torch.ones_like(root)），给每个元素加权。",
    },
    "autograd.gradient-shape": {
        "en": "gradient has shape {shape} but the root has shape {root_shape}; they must be the "
              "same.",
        "zh": "gradient 的形状是 {shape}，而根的形状是 {root_shape}；两者必须相同。",
    },
    "autograd.retain-not-tensor": {
        "en": "retain: '{name}' is not a tensor in names.",
        "zh": "retain：'{name}' 不是 names 里的张量。",
    },
    "autograd.retain-leaf": {
        "en": "retain: '{name}' is a leaf or has no grad_fn; retain_grad() is for intermediate "
              "results (leaves keep .grad anyway).",
        "zh": "retain：'{name}' 是叶子张量或没有 grad_fn；retain_grad() "
              "是给中间结果用的（叶子张量本来就会保留 .grad）。",
    },
    # the numerical check (numerical_check; graph_session's re-run of the program)
    "autograd.check-complex": {
        "en": "'{name}' is complex; the numerical check handles real inputs.",
        "zh": "'{name}' 是复数张量；数值检验只处理实数输入。",
    },
    "autograd.check-too-many-inputs": {
        "en": "The numerical check needs two forward passes per input element; these inputs have "
              "{total} elements (at most {limit}). Try it on a smaller example.",
        "zh": "数值检验对每个输入元素要做两次前向计算；这些输入共有 {total} 个元素（最多 {limit} "
              "个）。请换一个更小的例子。",
    },
    "autograd.check-no-input": {
        "en": "No floating-point input to check.",
        "zh": "没有可以检验的浮点输入。",
    },
    "autograd.check-not-tensor": {
        "en": "The function must return a tensor.",
        "zh": "函数必须返回一个张量。",
    },
    "autograd.check-too-many-outputs": {
        "en": "The output has {count} elements (at most {limit} for the numerical check). Reduce "
              "it (e.g. .sum()) or use a smaller example.",
        "zh": "输出有 {count} 个元素（数值检验最多 {limit} 个）。请先归约（例如 .sum()），"
              "或者换一个更小的例子。",
    },
    "autograd.check-no-graph": {
        "en": "The output does not depend on any input that requires grad.",
        "zh": "输出不依赖任何需要梯度的输入。",
    },
    "autograd.rerun-not-tensor": {
        "en": "The root is not a tensor after re-running.",
        "zh": "重新运行后，根不是张量。",
    },
    # --- (end of autograd's texts)

    # --- why a change cannot be undone (undo.py, workspace.py; Change.reason, not_undoable)
    "undo.too-large": {
        "en": "it changed more than {mib} MiB in place, more than undo keeps",
        "zh": "它原地修改了超过 {mib} MiB 的数据，超出了撤销能保存的量",
    },
    "undo.gradients-too-large": {
        "en": "it changed gradients too large to keep a copy of",
        "zh": "它修改的梯度太大，无法保留副本",
    },
    "undo.replaced": {
        "en": "the workspace's contents were replaced",
        "zh": "工作区的内容被整个替换了",
    },
    "undo.session-opened": {"en": "a session was opened", "zh": "打开了一个会话"},
    # what undo cannot put back (Change.notes) and the undo entry's text (UndoHistory.undo_text)
    "undo.history-lost": {
        "en": "the autograd history (grad_fn, is_leaf) of {names}",
        "zh": "{names} 的自动求导历史（grad_fn、is_leaf）",
    },
    "undo.read-only-kept": {
        "en": "{names} stays read-only: NumPy does not make an array that borrows its memory "
              "writeable again",
        "zh": "{names} 仍是只读的：NumPy 不允许把借用他人内存的数组重新设为可写",
    },
    "undo.layout-kept": {
        "en": "the shape, strides or dtype of {names}, which NumPy does not let be set back",
        "zh": "{names} 的形状、步长或 dtype（NumPy 不允许改回）",
    },
    "undo.large-arrays": {
        "en": "NumPy arrays too large to copy up front, if changed in place",
        "zh": "太大而无法预先复制的 NumPy 数组（若被原地修改）",
    },
    "undo.text": {"en": "Undo {label}", "zh": "撤销 {label}"},
    "undo.text-partial": {
        "en": "Undo {label} (not put back: {notes})",
        "zh": "撤销 {label}（无法恢复：{notes}）",
    },
    # --- the lesson checker's words (lessons.check_step: Check.text of a step's own error, and
    # what a check found); values, code and torch's words go in as parameters, as written
    "checker.code-runs": {"en": "the step's code runs", "zh": "这一步的代码能正常运行"},
    "checker.at-line": {"en": "line {line}: {detail}", "zh": "第 {line} 行：{detail}"},
    "checker.no-error": {"en": "the code ran without an error", "zh": "代码运行时没有出错"},
    "checker.other-error": {
        "en": "it failed differently: {kind} ({error_type}): {headline}",
        "zh": "出了另一种错误：{kind}（{error_type}）：{headline}",
    },
    "checker.not-evaluated": {"en": "could not be evaluated: {why}", "zh": "无法求值：{why}"},
    "checker.it-is": {"en": "it is {shown}", "zh": "实际值是 {shown}"},
    "checker.left-is": {"en": "{left} is {shown}", "zh": "{left} 实际是 {shown}"},
    "checker.no-value": {"en": "there is no value named {name!r}", "zh": "没有名为 {name!r} 的值"},
    # --- the Build form's fields (build.BuildSpec.code), named as the form labels them
    "build.shape-numbers": {"en": "shape {text}: write whole numbers separated by commas",
                            "zh": "形状 {text}：请写用逗号分隔的整数"},
    "build.shape-negative": {"en": "shape {text}: sizes cannot be negative",
                             "zh": "形状 {text}：大小不能是负数"},
    "build.fill-value": {"en": "fill value", "zh": "填充值"},
    "build.start": {"en": "start", "zh": "起点"},
    "build.end": {"en": "end", "zh": "终点"},
    "build.step": {"en": "step", "zh": "步长"},
    "build.steps": {"en": "steps", "zh": "点数"},
    "build.not-a-number": {"en": "{field}: {text} is not a number",
                           "zh": "{field}：{text} 不是数字"},
    "build.bad-name": {"en": "name: {name} is not a valid Python name",
                       "zh": "名称：{name} 不是合法的 Python 名字"},
    "build.bad-factory": {"en": "factory: {factory} is not one of {factories}",
                          "zh": "工厂函数：{factory} 不是 {factories} 之一"},
    "build.bad-dtype": {"en": "dtype: {dtype} is not supported here",
                        "zh": "dtype：这里不支持 {dtype}"},
    "build.dtype-not-made": {"en": "dtype: torch.{factory} does not make {dtype} tensors",
                             "zh": "dtype：torch.{factory} 不能创建 {dtype} 张量"},
    "build.bad-values": {"en": "values: {text} is not a Python number or list",
                         "zh": "值：{text} 不是 Python 数字或列表"},
    "build.eye-shape": {"en": "shape: eye takes one or two sizes (n, or n, m)",
                        "zh": "形状：eye 需要一个或两个大小（n，或 n, m）"},
    "build.grad-needs-float": {
        "en": "requires_grad: only floating point (and complex) tensors can require gradients",
        "zh": "requires_grad：只有浮点（和复数）张量才能需要梯度",
    },
    # --- why one element cannot be written in place (preview.write_refusal)
    "write.meta": {"en": "a meta tensor has no data to write into",
                   "zh": "meta 张量没有可以写入的数据"},
    "write.layout": {"en": "writing single elements of a {layout} tensor is not supported here",
                     "zh": "这里不支持逐个写入 {layout} 张量的元素"},
    "write.inference": {
        "en": "an inference tensor (made under torch.inference_mode) cannot be changed in place "
              "outside inference mode",
        "zh": "推理张量（在 torch.inference_mode 下创建）不能在推理模式之外被原地修改",
    },
    "write.leaf": {
        "en": "a leaf tensor that requires grad cannot be changed in place: autograd would lose "
              "track of it (optimizers do it under torch.no_grad())",
        "zh": "需要梯度的叶子张量不能被原地修改：autograd 会跟丢它（优化器是在 torch.no_grad() "
              "下修改它的）",
    },
    "write.view-of-leaf": {
        "en": "this is a view of a leaf tensor that requires grad; changing it in place would "
              "change that leaf",
        "zh": "这是一个需要梯度的叶子张量的视图；原地修改它就会修改那个叶子张量",
    },
    "write.overlap-tensor": {
        "en": "several elements share the same memory (an expanded or broadcast view): writing "
              "one would change them all",
        "zh": "多个元素共享同一块内存（expand 或广播得到的视图）：写入一个就会改变所有这些元素",
    },
    "write.words": {"en": "dates, durations and strings are shown, not edited, here",
                    "zh": "日期、时长和字符串在这里只显示，不能编辑"},
    "write.read-only": {
        "en": "the array is read-only (a read-only memory map, or a broadcast view); copy it to "
              "change it",
        "zh": "这个数组是只读的（只读的内存映射，或者广播得到的视图）；请复制一份再修改",
    },
    "write.overlap-array": {
        "en": "several elements share the same memory (a broadcast or strided view): writing "
              "one would change them all",
        "zh": "多个元素共享同一块内存（广播或带步长的视图）：写入一个就会改变所有这些元素",
    },
    "write.numpy-scalar": {
        "en": "a NumPy scalar cannot be changed in place; it is a copy, not a view of an array",
        "zh": "NumPy 标量不能被原地修改：它是一份副本，不是数组的视图",
    },
    "write.not-array": {"en": "not a tensor or an array: {kind}",
                        "zh": "不是张量也不是数组：{kind}"},
    # --- a value typed into the table (preview.parse_value)
    "edit.empty": {"en": "type a number", "zh": "请输入一个数"},
    "edit.not-bool": {"en": "{text} is not a bool: type True or False",
                      "zh": "{text} 不是布尔值：请输入 True 或 False"},
    "edit.not-number": {"en": "{text} is not a number", "zh": "{text} 不是数字"},
    "edit.not-whole": {"en": "{text} is not a whole number; {dtype} holds integers",
                       "zh": "{text} 不是整数；{dtype} 只能存整数"},
    "edit.out-of-range": {"en": "{n} does not fit in {dtype} ({low} to {high})",
                          "zh": "{n} 超出了 {dtype} 的范围（{low} 到 {high}）"},
    "edit.not-complex": {"en": "{text} is not a complex number (write it like 1+2j)",
                         "zh": "{text} 不是复数（请写成 1+2j 这样的形式）"},
    # --- notes of a value's facts (facts.TensorFacts.notes)
    "facts.note-inference": {"en": "inference tensors have no version counter",
                             "zh": "推理张量（inference tensor）没有版本计数器"},
    "facts.note-not-strided": {"en": "{layout} tensors have no strided storage",
                               "zh": "{layout} 张量没有按步长排列的存储"},
    "facts.note-byte-strides": {
        "en": "strides of {strides} bytes are no whole number of {itemsize}-byte elements (a "
              "record's field steps over the other fields): byte_stride has them exactly",
        "zh": "{strides} 字节的步长不是 {itemsize} 字节元素的整数倍（记录的字段会跨过其他字段）："
              "byte_stride 给出了精确的值",
    },
    # --- why an allocation has no bytes to draw (memory.Allocation.note)
    "memory.note-sparse": {
        "en": "{layout} tensor: values and indices live in separate buffers; there is no "
              "strided storage to compare",
        "zh": "{layout} 张量：数值和下标存放在不同的缓冲区里，没有可以比较的按步长排列的存储",
    },
    "memory.note-no-storage": {"en": "no accessible storage: {why}", "zh": "无法访问存储：{why}"},
    "memory.note-meta": {
        "en": "meta tensor: shape, dtype and strides only; no memory is allocated",
        "zh": "meta 张量：只有形状、dtype 和步长，没有分配内存",
    },
    "memory.note-empty": {"en": "empty storage (no memory allocated)",
                          "zh": "空的存储（没有分配内存）"},
    # --- the workspace is busy (workspace.WorkspaceBusy)
    "workspace.busy": {
        "en": "a program is running in this workspace; wait or cancel() it",
        "zh": "工作区里有程序正在运行；请等它结束或用 cancel() 停止它",
    },
    "workspace.busy-capture": {
        "en": "a program is running in this workspace; capture it when idle",
        "zh": "工作区里有程序正在运行；请在它空闲时再保存",
    },
    # --- a warning note as the workspace's output event carries it (workspace.py)
    "console.warning": {"en": "warning: {note}\n", "zh": "警告：{note}\n"},
    # --- debugging a script: tensor-explorer run, tx.breakpoint, tx.post_mortem (debugging.py)
    "debug.stopped-here": {"en": "Stopped here (tx.breakpoint)",
                           "zh": "在这里停下（tx.breakpoint）"},
    "debug.in-function": {"en": "in {function}() ({file})", "zh": "在 {function}() 中（{file}）"},
    "debug.nonfinite-forward": {
        "en": "{function} made NaN or Inf values ({nan} NaN, {inf} Inf in its output); {inputs}",
        "zh": "{function} 产生了 NaN 或 Inf（输出里有 {nan} 个 NaN、{inf} 个 Inf）；{inputs}",
    },
    "debug.nonfinite-backward": {
        "en": "the backward of {function} (called at {file}:{line}) made NaN or Inf gradients "
              "({nan} NaN, {inf} Inf) from a finite gradient",
        "zh": "{function} 的反向传播（在 {file}:{line} 调用）从有限的梯度算出了 NaN 或 Inf 梯度"
              "（{nan} 个 NaN、{inf} 个 Inf）",
    },
    "debug.inputs-finite": {"en": "its inputs were all finite",
                            "zh": "它的输入全都是有限值"},
    "debug.inputs-had": {"en": "its inputs already had some: {names}",
                         "zh": "它的输入里已经有了：{names}"},
    "debug.nonfinite-cause": {
        "en": "log or sqrt of zero or of a negative number, a division by zero, exp of a large "
              "number (overflow), 0 * inf, or a learning rate so high that the weights blew up. "
              "input_0, input_1... and output are the operation's values: look for zeros, "
              "negative numbers or very large values in them.",
        "zh": "对 0 或负数取 log 或 sqrt、除以 0、对很大的数取 exp（溢出）、0 * inf，或者学习率"
              "太大让权重爆炸。input_0、input_1……和 output 是这个运算的值：看看其中有没有 0、"
              "负数或非常大的值。",
    },
    "debug.no-script": {"en": "{path}: no such script", "zh": "{path}：没有这个脚本"},
    "debug.no-exception": {
        "en": "there is no exception to look at: call tx.post_mortem() in an except block, or "
              "after an error in IPython, or pass a traceback",
        "zh": "没有可以查看的异常：请在 except 块里、或在 IPython 出错之后调用 tx.post_mortem()，"
              "或者传入一个 traceback",
    },
    "debug.window-off": {
        "en": "(TENSOR_EXPLORER_NO_WINDOW is set: no window opens)",
        "zh": "（设置了 TENSOR_EXPLORER_NO_WINDOW：不打开窗口）",
    },
}  # fmt: skip


def fields(template: str) -> set[str]:
    """The names of the replacement fields of ``template``."""
    return {name for _text, name, _spec, _conv in string.Formatter().parse(template)
            if name is not None}


def _param(value: Any, lang: str) -> Any:
    if isinstance(value, Message):
        return value.render(lang)
    if isinstance(value, list | tuple):
        return _LIST_SEP.get(lang, ", ").join(str(_param(v, lang)) for v in value)
    if isinstance(value, Mapping):
        return value.get(lang, value["en"])
    return value


def template(code: str, lang: str = "en") -> str:
    """The template of ``code`` in ``lang`` (English where the catalog has no such language)."""
    templates = CATALOG[code]
    return templates.get(lang, templates["en"])


def render(code: str, lang: str = "en", **params: Any) -> str:
    """The text of ``code`` in ``lang`` (English where the catalog has no such language)."""
    return template(code, lang).format(**{k: _param(v, lang) for k, v in params.items()})


def _rebuild(code: str, params: dict[str, Any]) -> Message:
    return Message(code, **params)


class Message(str):
    """A catalog message: ``code`` and ``params``; as a ``str``, its English text.

    ``Message("refused.import", name="os")`` is ``"import of 'os' is not available"``;
    ``.render("zh")`` is ``"不能导入 'os'"``. An unknown code raises ``KeyError`` at once.
    Operations on it (``+``, slicing, ``str.replace``) give plain ``str``: English.
    """

    code: str
    params: dict[str, Any]

    def __new__(cls, code: str, /, **params: Any) -> Message:
        self = super().__new__(cls, render(code, "en", **params))
        self.code = code
        self.params = params
        return self

    def render(self, lang: str = "en") -> str:
        """This message in ``lang`` ("en" or "zh")."""
        return render(self.code, lang, **self.params)

    def codes(self) -> set[str]:
        """Its code and the codes of the Messages in its parameters (nested ones too)."""
        found = {self.code}
        for value in self.params.values():
            if isinstance(value, Message):
                found |= value.codes()
        return found

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (self.code, self.params))


def message_of(exc: BaseException) -> str:
    """What exception ``exc`` says: its catalog Message (its one argument), to be said in a
    language later; any other exception's text (torch's, Python's) as it was written."""
    return exc.args[0] if len(exc.args) == 1 and isinstance(exc.args[0], Message) else str(exc)


def error_in(exc: BaseException, lang: str) -> str:
    """What exception ``exc`` says, in ``lang`` (:func:`message_of`, rendered)."""
    return text_in(message_of(exc), lang)


def text_in(text: str, lang: str) -> str:
    """``text`` in ``lang`` when it is a :class:`Message`; any other text (torch's own words, a
    program's output) as it is."""
    return text.render(lang) if isinstance(text, Message) else text
