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
