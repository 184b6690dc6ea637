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

__all__ = ["CATALOG", "LANGUAGES", "Message", "render"]

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
    # --- the autograd graph pane's texts (core/graph_texts.py, core/graph_session.py)
    # --- (end of the graph pane's texts)
    # --- explanations of errors and warnings (core/explain.py) and the lesson checker's words
    # --- (end of explanations)
    # --- a warning note as the workspace's output event carries it (workspace.py)
    "console.warning": {"en": "warning: {note}\n", "zh": "警告：{note}\n"},
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


def render(code: str, lang: str = "en", **params: Any) -> str:
    """The text of ``code`` in ``lang`` (English where the catalog has no such language)."""
    templates = CATALOG[code]
    template = templates.get(lang, templates["en"])
    return template.format(**{k: _param(v, lang) for k, v in params.items()})


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

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (self.code, self.params))


def text_in(text: str, lang: str) -> str:
    """``text`` in ``lang`` when it is a :class:`Message`; any other text (torch's own words, a
    program's output) as it is."""
    return text.render(lang) if isinstance(text, Message) else text
