<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>BuildPanel</name>
    <message>
        <location filename="../../src/tensor_explorer/qt/build_panel.py" line="160"/>
        <location filename="../../src/tensor_explorer/qt/build_panel.py" line="161"/>
        <source>default</source>
        <translation>默认</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/build_panel.py" line="162"/>
        <source>requires_grad</source>
        <translation>requires_grad</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/build_panel.py" line="163"/>
        <source>seed</source>
        <translation>种子</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/build_panel.py" line="164"/>
        <source>Create</source>
        <translation>创建</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/build_panel.py" line="145"/>
        <source>name</source>
        <extracomment>which text fields each factory uses the form&apos;s row labels by field key (re-set by _set_texts)</extracomment>
        <translation>名称</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/build_panel.py" line="146"/>
        <source>factory</source>
        <translation>工厂函数</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/build_panel.py" line="147"/>
        <source>values</source>
        <translation>值</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/build_panel.py" line="148"/>
        <source>shape</source>
        <translation>形状</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/build_panel.py" line="149"/>
        <source>fill value</source>
        <translation>填充值</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/build_panel.py" line="150"/>
        <source>start</source>
        <translation>起点</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/build_panel.py" line="151"/>
        <source>end</source>
        <translation>终点</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/build_panel.py" line="152"/>
        <source>step</source>
        <translation>步长</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/build_panel.py" line="153"/>
        <source>steps</source>
        <translation>点数</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/build_panel.py" line="154"/>
        <source>random seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/build_panel.py" line="155"/>
        <source>dtype</source>
        <translation>dtype</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/build_panel.py" line="156"/>
        <source>device</source>
        <translation>设备</translation>
    </message>
</context>
<context>
    <name>CodePanel</name>
    <message>
        <location filename="../../src/tensor_explorer/qt/code_panel.py" line="40"/>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/code_panel.py" line="41"/>
        <source>Save as .py…</source>
        <translation>另存为 .py…</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/code_panel.py" line="72"/>
        <location filename="../../src/tensor_explorer/qt/code_panel.py" line="77"/>
        <source>Save script</source>
        <translation>保存脚本</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/code_panel.py" line="72"/>
        <source>Python (*.py)</source>
        <translation>Python 文件 (*.py)</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/code_panel.py" line="78"/>
        <source>Could not save: {0}</source>
        <translation>无法保存：{0}</translation>
    </message>
</context>
<context>
    <name>ConsolePanel</name>
    <message>
        <location filename="../../src/tensor_explorer/qt/console_panel.py" line="116"/>
        <source>Type statements, e.g.  y = x @ w + b   — Ctrl+Enter runs them, ↑/↓ bring back earlier ones</source>
        <extracomment>Python&apos;s own text for an object whose class has no repr of its own the theme the output&apos;s coloured text was written in (recoloured on a switch) follows the workspace the console shows: completion offers its names what the editor sent to the runner, until it finished or failed a program from a file nobody trusted yet ran restricted: says so, offers to trust it</extracomment>
        <translation>在此输入语句，例如  y = x @ w + b   — Ctrl+Enter 运行，↑/↓ 调出之前的输入</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/console_panel.py" line="118"/>
        <source>Device that factories (torch.zeros, torch.randn...) create tensors on</source>
        <translation>工厂函数（torch.zeros、torch.randn…）创建张量时使用的设备</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/console_panel.py" line="120"/>
        <source>default device</source>
        <translation>默认设备</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/console_panel.py" line="121"/>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/console_panel.py" line="122"/>
        <source>Run the statements (Ctrl+Enter)</source>
        <translation>运行这些语句（Ctrl+Enter）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/console_panel.py" line="123"/>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/console_panel.py" line="124"/>
        <source>Stop a running program; the workspace keeps what it had</source>
        <translation>停止正在运行的程序；工作区保留已有内容</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/console_panel.py" line="126"/>
        <source>Clear output</source>
        <translation>清空输出</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/console_panel.py" line="127"/>
        <source>device:</source>
        <translation>设备：</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/console_panel.py" line="242"/>
        <source>bound or changed: {0}</source>
        <extracomment>the theme roles the output writes in colour</extracomment>
        <translation>绑定或修改：{0}</translation>
    </message>
</context>
<context>
    <name>DebugBar</name>
    <message>
        <location filename="../../src/tensor_explorer/qt/debug_window.py" line="72"/>
        <source>Frame:</source>
        <translation>帧：</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/debug_window.py" line="74"/>
        <source>The frames of the stack, innermost first: choose one to see its values (grey: torch&apos;s or Python&apos;s own code)</source>
        <translation>调用栈的各帧，最内层在前：选一帧查看它的值（灰色：torch 或 Python 自己的代码）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/debug_window.py" line="76"/>
        <source>Continue (F8)</source>
        <translation>继续 (F8)</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/debug_window.py" line="78"/>
        <source>Close the window and let the script go on</source>
        <translation>关闭窗口，让脚本继续运行</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/debug_window.py" line="165"/>
        <source>Tensor Explorer — {0}</source>
        <translation>Tensor Explorer — {0}</translation>
    </message>
</context>
<context>
    <name>DockTitleBar</name>
    <message>
        <location filename="../../src/tensor_explorer/qt/docks.py" line="186"/>
        <source>Float or dock this panel</source>
        <translation>让此面板浮动或停靠</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/docks.py" line="187"/>
        <source>Close this panel (View menu brings it back)</source>
        <translation>关闭此面板（可从“视图”菜单重新打开）</translation>
    </message>
</context>
<context>
    <name>EditActions</name>
    <message>
        <location filename="../../src/tensor_explorer/qt/edit_actions.py" line="121"/>
        <source>&amp;Copy</source>
        <translation>复制(&amp;C)</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/edit_actions.py" line="124"/>
        <source>Copy the selected value as torch prints it, or the cells selected in the Values table as CSV</source>
        <translation>按 torch 的打印方式复制所选的值，或把数值表中选中的单元格复制为 CSV</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/edit_actions.py" line="127"/>
        <source>Copy as &amp;NumPy literal</source>
        <translation>复制为 &amp;NumPy 字面量</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/edit_actions.py" line="130"/>
        <source>Copy the cells selected in the Values table (or the whole value) as np.array(...)</source>
        <translation>把数值表中选中的单元格（或整个值）复制为 np.array(...)</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/edit_actions.py" line="132"/>
        <source>&amp;Find value…</source>
        <translation>查找值(&amp;F)…</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/edit_actions.py" line="134"/>
        <source>Find a value by name and select it</source>
        <translation>按名字查找并选中一个值</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/edit_actions.py" line="149"/>
        <source>Not copied: {cells} cells are selected; at most {limit} can be copied</source>
        <translation>未复制：选中了 {cells} 个单元格，最多只能复制 {limit} 个</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/edit_actions.py" line="169"/>
        <source>Copied the selected cells as CSV</source>
        <translation>已将选中的单元格复制为 CSV</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/edit_actions.py" line="173"/>
        <source>Nothing to copy: select a value first</source>
        <translation>没有可复制的内容：请先选择一个值</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/edit_actions.py" line="176"/>
        <location filename="../../src/tensor_explorer/qt/edit_actions.py" line="207"/>
        <source>Copied {0}</source>
        <translation>已复制 {0}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/edit_actions.py" line="190"/>
        <source>Copied the selected cells as a NumPy literal</source>
        <translation>已将选中的单元格复制为 NumPy 字面量</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/edit_actions.py" line="201"/>
        <source>Nothing to copy as NumPy: select a tensor or array</source>
        <translation>无法复制为 NumPy：请选择一个张量或数组</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/edit_actions.py" line="204"/>
        <source>Too large to copy as a literal: select cells in the Values table</source>
        <translation>太大，无法复制为字面量：请在数值表中选择单元格</translation>
    </message>
</context>
<context>
    <name>Errors</name>
    <message>
        <location filename="../../src/tensor_explorer/qt/errors.py" line="57"/>
        <source>Something went wrong</source>
        <translation>出错了</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/errors.py" line="58"/>
        <source>An unexpected error occurred; your work is still here.</source>
        <translation>发生了意外错误；你的工作内容仍然保留。</translation>
    </message>
</context>
<context>
    <name>FindBar</name>
    <message>
        <location filename="../../src/tensor_explorer/qt/edit_actions.py" line="60"/>
        <source>Find a value by name…</source>
        <translation>按名字查找值…</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/edit_actions.py" line="61"/>
        <source>Type part of a name; Enter or a click selects the value</source>
        <translation>输入名字的一部分；按 Enter 或点击即可选中该值</translation>
    </message>
</context>
<context>
    <name>GoToBar</name>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_table.py" line="184"/>
        <source>Go to index</source>
        <extracomment>Qt counts rows and columns in a C int: a longer axis shows its first this many</extracomment>
        <translation>转到下标</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_table.py" line="185"/>
        <source>e.g. 1, 1</source>
        <translation>例如 1, 1</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_table.py" line="186"/>
        <source>One index per axis, like a[1, 1]; negative counts from the end. Enter goes there.</source>
        <translation>每个轴一个下标，如 a[1, 1]；负数从末尾数起。按回车转到该处。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_table.py" line="189"/>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
</context>
<context>
    <name>GradHistoryView</name>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_history.py" line="36"/>
        <location filename="../../src/tensor_explorer/qt/graph_history.py" line="53"/>
        <source>call</source>
        <translation>调用</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_history.py" line="37"/>
        <source>‖grad‖</source>
        <translation>‖grad‖</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_history.py" line="53"/>
        <source>event</source>
        <translation>事件</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_history.py" line="53"/>
        <source>step</source>
        <translation>步长</translation>
    </message>
</context>
<context>
    <name>GraphDetails</name>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="44"/>
        <source>root: where backward starts</source>
        <translation>根：backward 从这里开始</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="45"/>
        <source>operation (its backward function)</source>
        <translation>运算（它的反向函数）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="46"/>
        <source>named intermediate (a workspace value)</source>
        <translation>有名字的中间结果（工作区中的值）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="47"/>
        <source>leaf: .grad accumulates here</source>
        <translation>叶子：.grad 在这里累积</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="50"/>
        <source>constant cut off from the graph (no_grad, inference_mode, detach)</source>
        <translation>从计算图断开的常量（no_grad、inference_mode、detach）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="56"/>
        <source>Click a node for its saved tensors and .grad, or an edge for the gradient that flowed along it. Data flows down the arrows; backward sends gradients back up.</source>
        <translation>点击节点查看它保存的张量和 .grad，点击边查看沿它流过的梯度。数据沿箭头向下流动；backward 把梯度向上传回。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="101"/>
        <source>.grad is None: no backward has reached this leaf since it was made or last set to None.</source>
        <translation>.grad 是 None：自创建或上次被设为 None 以来，还没有 backward 传到这个叶子。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="105"/>
        <source>backward calls accumulated: {0}</source>
        <translation>已累积的 backward 次数：{0}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="139"/>
        <source>Saved nothing for backward.</source>
        <translation>没有为反向传播保存任何张量。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="142"/>
        <source>ok</source>
        <translation>正常</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="144"/>
        <source>STALE: changed in place</source>
        <translation>已过期：被原地修改</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="146"/>
        <source>freed by backward</source>
        <translation>已被 backward 释放</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="151"/>
        <source>saved tensor</source>
        <translation>保存的张量</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="151"/>
        <source>shape</source>
        <translation>形状</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="151"/>
        <source>dtype</source>
        <translation>dtype</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="151"/>
        <source>state</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="179"/>
        <source>The operations one call of this module made (forward hooks noted them while the program ran): {0} operations.</source>
        <translation>这个模块的一次调用所做的运算（程序运行时由 forward 钩子记下）：共 {0} 个运算。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="182"/>
        <source>This is call {0} of it.</source>
        <translation>这是它的第 {0} 次调用。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="185"/>
        <source>{0} repeated blocks of {1} operations</source>
        <translation>{0} 个重复块，每块 {1} 个运算</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="187"/>
        <source>The same block of operations, {0} times in a row: the iterations of a loop or the layers of a stack. Blocks count as the same when their operations and the way they connect are the same; their values, shapes and weights may differ.</source>
        <translation>同一块运算连续出现 {0} 次：循环的各次迭代，或堆叠的各层。只要运算和它们的连接方式相同，就算作相同的块；它们的值、形状和权重可以不同。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="191"/>
        <source>Click it in the graph to show its blocks.</source>
        <translation>在图中点击它即可显示各个块。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="193"/>
        <source>Block {0} of {1} ({2} operations)</source>
        <translation>第 {0} 块，共 {1} 块（{2} 个运算）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="195"/>
        <source>One block of a run of repeated blocks; block 1 was computed first (the first iteration the run covers).</source>
        <translation>一串重复块中的一块；第 1 块最先计算（这一串所包含的第一次迭代）。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="183"/>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="197"/>
        <source>Click it in the graph to show its operations.</source>
        <translation>在图中点击它即可显示其中的运算。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="48"/>
        <source>group: a module call, repeated blocks or a chain of operations (click to open it)</source>
        <translation>分组：一次模块调用、重复的块或一条运算链（点击展开）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="198"/>
        <source>Its operations</source>
        <translation>它的运算</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="204"/>
        <source>Named values inside: {0}</source>
        <translation>其中有名字的值：{0}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="207"/>
        <source>Leaves it reads ({0}): {1}</source>
        <translation>它读取的叶子（{0} 个）：{1}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="225"/>
        <source>{0} was computed from this node, but without a graph: backward will never reach it.</source>
        <translation>{0} 由这个节点计算得到，但没有计算图：backward 永远不会到达它。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="241"/>
        <source>{0} uses of different outputs of {1}: each output gets its own gradient.</source>
        <translation>用到了 {1} 的 {0} 个不同输出：每个输出各有自己的梯度。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="244"/>
        <source>This input is used {0} times by the operation; the gradients of each use add up.</source>
        <translation>这个输入被该运算使用了 {0} 次；每次使用的梯度会相加。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="248"/>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="303"/>
        <source>Run backward to see the gradient that flows along this edge.</source>
        <translation>运行 backward 以查看沿这条边流过的梯度。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="254"/>
        <source>use {0} (input {1} of {2}), output {3}</source>
        <translation>第 {0} 处使用（{2} 的第 {1} 个输入），输出 {3}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="256"/>
        <source>use {0} (input {1} of {2})</source>
        <translation>第 {0} 处使用（{2} 的第 {1} 个输入）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="260"/>
        <source>sum: what {0} receives from this operation</source>
        <translation>合计：{0} 从这个运算收到的梯度</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="279"/>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="308"/>
        <source>No gradient flowed along this edge.</source>
        <translation>这条边上没有梯度流过。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="296"/>
        <source>{0} edges of the graph, one from each place in the group that uses {1}; the gradients along them add up.</source>
        <translation>计算图中的 {0} 条边，分组里每个用到 {1} 的地方各有一条；沿这些边的梯度会相加。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="310"/>
        <source>Norm of the summed gradient: {0}</source>
        <translation>梯度之和的范数：{0}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="312"/>
        <source>Expand the group to see the gradient along each edge.</source>
        <translation>展开分组可查看每条边上的梯度。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="168"/>
        <source>Click it in the graph to expand it.</source>
        <translation>在图中点击它即可展开。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="123"/>
        <source>Cut off from the graph</source>
        <translation>已从计算图断开</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="223"/>
        <source>Cut: gradient stops here</source>
        <translation>断开：梯度在这里停止</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="199"/>
        <source>Each block, in the order computed</source>
        <translation>每一块（按计算顺序）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="93"/>
        <source>gradient it receives</source>
        <translation>它接收的梯度</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="270"/>
        <source>gradient shape</source>
        <translation>梯度形状</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="294"/>
        <source>group</source>
        <translation>分组</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="167"/>
        <source>Group of {0} operations</source>
        <translation>{0} 个运算组成的分组</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="85"/>
        <source>kind</source>
        <translation>类别</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="85"/>
        <source>names</source>
        <translation>名称</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="93"/>
        <source>on</source>
        <translation>位于</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_details.py" line="152"/>
        <source>Saved for backward</source>
        <translation>为反向传播保存的张量</translation>
    </message>
</context>
<context>
    <name>GraphPanel</name>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_panel.py" line="305"/>
        <source>Re-run the program that built this graph on another device</source>
        <translation>在另一个设备上重新运行构建这张图的程序</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_panel.py" line="306"/>
        <source>Fit</source>
        <translation>适应窗口</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_panel.py" line="307"/>
        <source>Zoom out (-)</source>
        <translation>缩小 (-)</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_panel.py" line="308"/>
        <source>Zoom in (+)</source>
        <translation>放大 (+)</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_panel.py" line="309"/>
        <source>Show the whole graph (0)</source>
        <translation>显示整张图 (0)</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_panel.py" line="356"/>
        <source>Backward</source>
        <translation>反向传播</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_panel.py" line="314"/>
        <source>Run root.backward(...) and record the gradient along every edge</source>
        <translation>运行 root.backward(...)，并记录每条边上流过的梯度</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_panel.py" line="315"/>
        <source>How many backward calls to run in a row</source>
        <translation>连续运行多少次 backward</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_panel.py" line="317"/>
        <source>Keep the saved tensors so backward can run on this graph again</source>
        <translation>保留已保存的张量，以便在这张图上再次运行 backward</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_panel.py" line="320"/>
        <source>gradient= for a root with more than one element: ones, a number, or a list like [1.0, 1.0]</source>
        <translation>根有多个元素时需要 gradient=：ones、一个数，或像 [1.0, 1.0] 这样的列表</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_panel.py" line="323"/>
        <source>Call retain_grad() on this intermediate so its .grad is kept</source>
        <translation>对这个中间结果调用 retain_grad()，以保留它的 .grad</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_panel.py" line="324"/>
        <source>Clear the leaves&apos; .grad (like optimizer.zero_grad)</source>
        <translation>清空叶子张量的 .grad（类似 optimizer.zero_grad）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_panel.py" line="326"/>
        <source>On: .grad becomes None. Off: .grad is filled with zeros.</source>
        <translation>勾选：.grad 变为 None。不勾选：.grad 被填为零。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_panel.py" line="327"/>
        <source>Numerical check</source>
        <translation>数值检验</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_panel.py" line="329"/>
        <source>Compare autograd&apos;s gradients with finite differences in float64 (small graphs)</source>
        <translation>用 float64 有限差分核对 autograd 的梯度（适用于小图）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_panel.py" line="330"/>
        <source>Training step…</source>
        <translation>训练一步…</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_panel.py" line="332"/>
        <source>The seed&apos;s inspect_batch and run_one_step on features, labels and a model</source>
        <translation>对特征、标签和模型运行课程中的 inspect_batch 与 run_one_step</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_panel.py" line="450"/>
        <source>Graph of {0}: {1}, {2}</source>
        <translation>{0} 的计算图：{1}，{2}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_panel.py" line="452"/>
        <source>1 node</source>
        <translation>1 个节点</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_panel.py" line="452"/>
        <source>{0} nodes</source>
        <translation>{0} 个节点</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_panel.py" line="453"/>
        <source>1 edge</source>
        <translation>1 条边</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_panel.py" line="453"/>
        <source>{0} edges</source>
        <translation>{0} 条边</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_panel.py" line="457"/>
        <source>1 module call</source>
        <translation>1 次模块调用</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_panel.py" line="457"/>
        <source>{0} module calls</source>
        <translation>{0} 次模块调用</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_panel.py" line="458"/>
        <source>1 run of repeated blocks</source>
        <translation>1 组重复块</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_panel.py" line="458"/>
        <source>{0} runs of repeated blocks</source>
        <translation>{0} 组重复块</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_panel.py" line="460"/>
        <source>1 block</source>
        <translation>1 个块</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_panel.py" line="460"/>
        <source>{0} blocks</source>
        <translation>{0} 个块</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_panel.py" line="461"/>
        <source>1 chain</source>
        <translation>1 条运算链</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_panel.py" line="461"/>
        <source>{0} chains</source>
        <translation>{0} 条运算链</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_panel.py" line="333"/>
        <source>Details</source>
        <translation>详情</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_panel.py" line="334"/>
        <source>Accumulation</source>
        <translation>累积</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_panel.py" line="303"/>
        <source>Device:</source>
        <extracomment>emitted after a graph is shown (drawn), and after each backward / zero_grad</extracomment>
        <translation>设备：</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_panel.py" line="318"/>
        <source>gradient:</source>
        <translation>gradient：</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_panel.py" line="357"/>
        <source>Backward ×{0}</source>
        <translation>反向传播 ×{0}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_panel.py" line="448"/>
        <source>No graph</source>
        <translation>没有计算图</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_panel.py" line="465"/>
        <source>re-run on {0}</source>
        <translation>在 {0} 上重新运行</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_panel.py" line="488"/>
        <source>(none)</source>
        <translation>（无）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_panel.py" line="310"/>
        <source>Fold</source>
        <translation>折叠</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_panel.py" line="311"/>
        <source>Fold the groups you opened again (the first view)</source>
        <translation>把展开过的分组重新折叠（回到最初的视图）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_panel.py" line="462"/>
        <source>(folded: {0}; click a group to open it)</source>
        <translation>（已折叠：{0}；点击分组可展开）</translation>
    </message>
</context>
<context>
    <name>GraphView</name>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_view.py" line="1201"/>
        <source>{0} of {1} boxes are outside the view: drag to see them, or zoom out (−)</source>
        <extracomment>node kinds drawn: the core&apos;s kinds plus &quot;const&quot; (a cut-off constant drawn apart) a test hook: while a list, every text painted is appended (GraphView.drawn_texts) what is outside the view, when a fit could not show everything readably</extracomment>
        <translation>{1} 个框中有 {0} 个在视图之外：拖动查看，或缩小（−）</translation>
    </message>
</context>
<context>
    <name>Inspector</name>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="54"/>
        <source>What it is</source>
        <translation>基本信息</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="55"/>
        <source>kind</source>
        <translation>类别</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="55"/>
        <source>Whether this is a torch tensor or a NumPy array.</source>
        <translation>这是 torch 张量还是 NumPy 数组。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="56"/>
        <source>shape</source>
        <translation>形状</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="56"/>
        <source>The size along each axis; its length is the number of dimensions.</source>
        <translation>每个轴上的大小；它的长度就是维数。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="57"/>
        <source>dtype</source>
        <translation>dtype</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="57"/>
        <source>The type of every element: it decides precision, range and which operations are allowed.</source>
        <translation>每个元素的类型：决定精度、取值范围以及允许哪些运算。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="58"/>
        <source>device</source>
        <translation>设备</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="58"/>
        <source>Where the data lives (cpu, cuda:0...); tensors in one operation must share a device.</source>
        <translation>数据所在的位置（cpu、cuda:0…）；同一运算中的张量必须在同一设备上。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="59"/>
        <source>elements</source>
        <translation>元素数</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="59"/>
        <source>How many elements there are: the product of the shape.</source>
        <translation>元素个数：形状各维的乘积。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="61"/>
        <source>Memory layout</source>
        <translation>内存布局</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="62"/>
        <source>stride</source>
        <translation>步长 stride</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="62"/>
        <source>How many elements to skip in memory to move one step along each axis.</source>
        <translation>沿每个轴前进一步时，在内存中要跳过多少个元素。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="63"/>
        <source>storage offset</source>
        <translation>存储偏移</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="63"/>
        <source>Where the first element sits in its storage, counted in elements.</source>
        <translation>第一个元素在存储中的位置（以元素计）。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="64"/>
        <source>contiguous</source>
        <translation>连续</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="64"/>
        <source>True when the elements lie in memory in row-major order with no gaps; view() needs this.</source>
        <translation>元素在内存中按行优先顺序无间隙排列时为 True；view() 需要这一点。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="65"/>
        <source>element size</source>
        <translation>元素大小</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="65"/>
        <source>Bytes per element.</source>
        <translation>每个元素的字节数。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="66"/>
        <source>bytes</source>
        <translation>字节数</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="66"/>
        <source>Bytes the elements would need: elements x element size.</source>
        <translation>这些元素需要的字节数：元素数 × 元素大小。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="67"/>
        <source>storage bytes</source>
        <translation>存储字节数</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="67"/>
        <source>Bytes of the whole allocation this value looks into (views share it).</source>
        <translation>该值所引用的整块内存的字节数（视图共享它）。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="68"/>
        <source>internal overlap</source>
        <translation>内部重叠</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="68"/>
        <source>True when two elements read the same bytes (after expand): in-place writes are unsafe.</source>
        <translation>两个元素读取相同字节时为 True（如 expand 之后）：原地写入不安全。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="69"/>
        <source>is a view</source>
        <translation>是视图</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="69"/>
        <source>True when this value looks into memory owned by another value.</source>
        <translation>该值引用的是另一个值拥有的内存时为 True。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="70"/>
        <source>memory-mapped file</source>
        <translation>内存映射文件</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="47"/>
        <source>copy-on-write: edits stay in memory</source>
        <extracomment>item data role of a group row&apos;s language-independent key (&quot;Memory layout&quot;, &quot;statistics&quot;...) values with at most this many elements get their statistics synchronously item data role of a module&apos;s parameter or buffer row: its qualified name in the workspace a module&apos;s parameters (and buffers) listed at most, each; the Workspace panel has them all how a memory-mapped value&apos;s writes behave (core&apos;s MapInfo.mode -&gt; the shown text)</extracomment>
        <translation>写时复制：修改只留在内存中</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="48"/>
        <source>read-only</source>
        <translation>只读</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="49"/>
        <source>read-write: edits reach the file</source>
        <translation>读写：修改会写回文件</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="70"/>
        <source>The file whose pages hold these bytes, read only when used.</source>
        <translation>保存这些字节的文件，用到时才读取。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="71"/>
        <source>file offset</source>
        <translation>文件偏移</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="71"/>
        <source>The byte of the file where the first element lies (after the file&apos;s header).</source>
        <translation>第一个元素在文件中所处的字节位置（在文件头之后）。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="72"/>
        <source>mapping</source>
        <translation>映射方式</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="72"/>
        <source>Whether a write reaches the file.</source>
        <translation>写入是否会改到文件。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="73"/>
        <source>byte order</source>
        <translation>字节序</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="73"/>
        <source>The order of bytes in each element; torch needs this machine&apos;s order.</source>
        <translation>每个元素内字节的排列顺序；torch 需要本机字节序。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="74"/>
        <source>writeable</source>
        <translation>可写</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="74"/>
        <source>Whether the memory can be written to.</source>
        <translation>这块内存是否可以写入。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="76"/>
        <source>Autograd</source>
        <translation>自动微分</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="77"/>
        <source>requires_grad</source>
        <translation>requires_grad</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="77"/>
        <source>True when autograd records operations on this tensor so gradients can flow to it.</source>
        <translation>autograd 会记录对该张量的运算、梯度能流到它时为 True。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="78"/>
        <source>is leaf</source>
        <translation>叶子节点</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="78"/>
        <source>True for tensors created by you rather than computed; only leaves get .grad filled by backward().</source>
        <translation>由你直接创建（而非计算得到）的张量为 True；backward() 只填充叶子张量的 .grad。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="79"/>
        <source>grad_fn</source>
        <translation>grad_fn</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="79"/>
        <source>The autograd node that made this tensor; backward() starts here.</source>
        <translation>生成该张量的 autograd 节点；backward() 从这里开始。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="80"/>
        <source>grad</source>
        <translation>梯度 grad</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="80"/>
        <source>The accumulated gradient (shape and norm), or None.</source>
        <translation>累积的梯度（形状和范数），或 None。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="81"/>
        <source>retains grad</source>
        <translation>保留梯度</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="81"/>
        <source>True after retain_grad(): this non-leaf keeps its gradient.</source>
        <translation>调用 retain_grad() 后为 True：这个非叶子张量会保留梯度。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="82"/>
        <source>version</source>
        <translation>版本号</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="82"/>
        <source>Counts in-place changes; autograd uses it to detect a saved tensor that was modified.</source>
        <translation>记录原地修改的次数；autograd 用它发现被修改过的已保存张量。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="83"/>
        <source>inference tensor</source>
        <translation>推理张量</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="83"/>
        <source>Made under torch.inference_mode(): it can never enter autograd.</source>
        <translation>在 torch.inference_mode() 下创建：永远不能进入 autograd。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="84"/>
        <source>parameter</source>
        <translation>参数</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="84"/>
        <source>An nn.Parameter: a leaf that a module trains.</source>
        <translation>nn.Parameter：由模块训练的叶子张量。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="89"/>
        <source>parameters</source>
        <translation>参数量</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="89"/>
        <source>How many numbers the module learns: the elements of all its parameters, a shared one counted once.</source>
        <translation>模块要学习多少个数：所有参数的元素总数，共享的参数只计一次。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="90"/>
        <source>trainable</source>
        <translation>可训练</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="90"/>
        <source>Elements of the parameters with requires_grad=True: what an optimizer updates; the others are frozen.</source>
        <translation>requires_grad=True 的参数的元素数：优化器会更新它们；其余的参数被冻结。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="91"/>
        <source>gradients</source>
        <translation>梯度</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="91"/>
        <source>How many parameters hold a .grad from backward(); zero_grad() clears them.</source>
        <translation>有多少个参数持有 backward() 算出的 .grad；zero_grad() 会清除它们。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="92"/>
        <source>buffers</source>
        <translation>缓冲区 buffers</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="92"/>
        <source>Tensors the module keeps but does not train (batch norm&apos;s running mean and variance); saved in its state_dict.</source>
        <translation>模块保存但不训练的张量（例如 batch norm 的滑动均值和方差），会存入它的 state_dict。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="93"/>
        <source>devices</source>
        <translation>设备</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="93"/>
        <source>Where its parameters and buffers live; its inputs must be on the same device.</source>
        <translation>它的参数和缓冲区所在的设备；输入必须在同一设备上。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="94"/>
        <source>dtypes</source>
        <translation>dtype</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="94"/>
        <source>The dtypes of its parameters and buffers; floating inputs should have the parameters&apos; dtype.</source>
        <translation>它的参数和缓冲区的 dtype；浮点输入应与参数的 dtype 相同。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="95"/>
        <source>mode</source>
        <translation>模式</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="95"/>
        <source>train() or eval(): dropout and batch norm behave differently in each.</source>
        <translation>train() 或 eval()：dropout 和 batch norm 在两种模式下的行为不同。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="96"/>
        <source>submodules</source>
        <translation>子模块</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="96"/>
        <source>How many modules it contains at every depth (a shared one counted once).</source>
        <translation>它在各层级包含的模块数（共享的模块只计一次）。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="97"/>
        <source>uninitialized</source>
        <translation>未初始化</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="97"/>
        <source>Parameters of a lazy module: they get their shape at the first forward pass.</source>
        <translation>惰性模块（lazy module）的参数：第一次前向计算时才确定形状。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="101"/>
        <source>min</source>
        <translation>最小值</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="101"/>
        <source>The smallest finite value.</source>
        <translation>最小的有限值。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="102"/>
        <source>max</source>
        <translation>最大值</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="102"/>
        <source>The largest finite value.</source>
        <translation>最大的有限值。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="103"/>
        <source>mean</source>
        <translation>均值</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="103"/>
        <source>The average of the finite values (accumulated in float64).</source>
        <translation>有限值的平均值（以 float64 累加）。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="104"/>
        <source>std</source>
        <translation>标准差</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="104"/>
        <source>The standard deviation of the finite values (population, ddof=0).</source>
        <translation>有限值的标准差（总体，ddof=0）。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="105"/>
        <source>NaN</source>
        <translation>NaN</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="105"/>
        <source>How many elements are Not a Number.</source>
        <translation>有多少个元素是 NaN（非数）。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="106"/>
        <source>+Inf</source>
        <translation>+Inf</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="106"/>
        <source>How many elements are positive infinity.</source>
        <translation>有多少个元素是正无穷。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="107"/>
        <source>-Inf</source>
        <translation>-Inf</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="107"/>
        <source>How many elements are negative infinity.</source>
        <translation>有多少个元素是负无穷。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="108"/>
        <source>zeros</source>
        <translation>零的个数</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="108"/>
        <source>How many elements are exactly zero.</source>
        <translation>恰好等于零的元素个数。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="109"/>
        <source>first non-finite</source>
        <translation>第一个非有限值</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="109"/>
        <source>The index of the first NaN or Inf, in row-major order.</source>
        <translation>按行优先顺序第一个 NaN 或 Inf 的下标。</translation>
    </message>
</context>
<context>
    <name>InspectorPanel</name>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="195"/>
        <source>fact</source>
        <extracomment>groups to show collapsed and scroll positions to restore when statistics computed in the background arrive after a language switch (see :meth:`retranslate`)</extracomment>
        <translation>属性</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="195"/>
        <source>value</source>
        <translation>值</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="196"/>
        <source>statistics %p%</source>
        <translation>统计 %p%</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="308"/>
        <source>Value</source>
        <translation>值</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="312"/>
        <source>repr</source>
        <translation>repr</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="365"/>
        <source>{0} ({1} frozen)</source>
        <translation>{0}（{1} 个被冻结）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="366"/>
        <source>training (train())</source>
        <translation>训练模式（train()）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="366"/>
        <source>evaluation (eval())</source>
        <translation>评估模式（eval()）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="369"/>
        <source>{0}; 1 submodule in the other mode</source>
        <translation>{0}；1 个子模块处于另一模式</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="370"/>
        <source>{0}; {1} submodules in the other mode</source>
        <translation>{0}；有 {1} 个子模块处于另一种模式</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="372"/>
        <source>{0} in 1 tensor</source>
        <translation>{0}，共 1 个张量</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="373"/>
        <source>{0} in {1} tensors</source>
        <translation>{0}，共 {1} 个张量</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="374"/>
        <source>{0} of 1 parameter has .grad</source>
        <translation>1 个参数中有 {0} 个有 .grad</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="375"/>
        <source>{0} of {1} parameters have .grad</source>
        <translation>{1} 个参数中有 {0} 个有 .grad</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="376"/>
        <source>{0} (1 element)</source>
        <translation>{0}（1 个元素）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="377"/>
        <source>{0} ({1} elements)</source>
        <translation>{0} 个（{1} 个元素）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="397"/>
        <source>Module</source>
        <translation>模块</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="402"/>
        <source>Parameters</source>
        <translation>参数</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="403"/>
        <source>Buffers</source>
        <translation>缓冲区</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="411"/>
        <source>{0} more: expand {1} in the Workspace panel</source>
        <translation>还有 {0} 个：在工作区面板中展开 {1} 查看</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="415"/>
        <source>not initialized yet (lazy module)</source>
        <translation>尚未初始化（惰性模块）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="424"/>
        <source>Double-click to inspect {0}.{1}</source>
        <translation>双击查看 {0}.{1}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="435"/>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="471"/>
        <source>How it was made</source>
        <translation>如何得到</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="439"/>
        <source>a parameter of {0} ({1})</source>
        <translation>{0}（{1}）的参数</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="440"/>
        <source>a buffer of {0} ({1})</source>
        <translation>{0}（{1}）的缓冲区</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="441"/>
        <source>a submodule of {0} ({1})</source>
        <translation>{0}（{1}）的子模块</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="442"/>
        <source>belongs to</source>
        <translation>所属模块</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="443"/>
        <source>The module that holds it; the module&apos;s parameters(), state_dict() and optimizer include it.</source>
        <translation>持有它的模块；该模块的 parameters()、state_dict() 和优化器都包含它。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="445"/>
        <source>code</source>
        <translation>代码</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="446"/>
        <source>How to reach it in Python.</source>
        <translation>在 Python 中如何访问它。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="450"/>
        <source>shared with</source>
        <translation>共享于</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="451"/>
        <source>The same object is registered under this name too: a change to one is a change to the other.</source>
        <translation>同一个对象也以这个名字注册：改动其中一个就是改动另一个。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="457"/>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="473"/>
        <source>source</source>
        <translation>来源</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="459"/>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="476"/>
        <source>statement</source>
        <translation>语句</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="460"/>
        <source>The code that bound {0}, the module it belongs to.</source>
        <translation>绑定 {0}（它所属的模块）的代码。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="464"/>
        <source>opened from {0}</source>
        <translation>打开自 {0}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="465"/>
        <source>handed in (explore() or the API)</source>
        <translation>直接传入（explore() 或 API）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="477"/>
        <source>The code that bound this name.</source>
        <translation>绑定这个名字的代码。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="479"/>
        <source>grad mode</source>
        <translation>梯度模式</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="480"/>
        <source>The autograd mode in force when it was made.</source>
        <translation>创建时生效的 autograd 模式。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="484"/>
        <source>memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="528"/>
        <source>Statistics failed: {0}</source>
        <translation>统计失败：{0}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="537"/>
        <source>Statistics</source>
        <translation>统计</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="538"/>
        <source> (of |z|)</source>
        <translation>（|z| 的统计）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/diagnosis_list.py" line="68"/>
        <source>No common mistakes found.</source>
        <extracomment>the one line shown when there is no diagnosis to list</extracomment>
        <translation>没有发现常见错误。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="287"/>
        <source>Select a value to inspect it.</source>
        <translation>选择一个值来检查它。</translation>
    </message>
</context>
<context>
    <name>JobRunner</name>
    <message>
        <location filename="../../src/tensor_explorer/qt/job_runner.py" line="50"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
</context>
<context>
    <name>LessonPanel</name>
    <message>
        <location filename="../../src/tensor_explorer/qt/lesson_panel.py" line="243"/>
        <source>◀ Previous</source>
        <translation>◀ 上一步</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/lesson_panel.py" line="244"/>
        <source>Previous step (PageUp, Alt+Left)</source>
        <translation>上一步（PageUp、Alt+←）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/lesson_panel.py" line="245"/>
        <source>Next ▶</source>
        <translation>下一步 ▶</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/lesson_panel.py" line="246"/>
        <source>Next step (PageDown, Alt+Right)</source>
        <translation>下一步（PageDown、Alt+→）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/lesson_panel.py" line="247"/>
        <source>Reset</source>
        <translation>重来</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/lesson_panel.py" line="248"/>
        <source>Clear the workspace and start the lesson again</source>
        <translation>清空工作区，从头开始这节课</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/lesson_panel.py" line="291"/>
        <source>The shipped lessons could not be read</source>
        <translation>无法读取内置课程</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/lesson_panel.py" line="299"/>
        <source>Open lesson file…</source>
        <translation>打开课程文件…</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/lesson_panel.py" line="331"/>
        <source>This lesson cannot be opened</source>
        <translation>无法打开这节课</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/lesson_panel.py" line="334"/>
        <source>Opening the lesson “{0}” replaces them.</source>
        <translation>打开课程“{0}”会替换它们。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/lesson_panel.py" line="366"/>
        <source>It could not be trusted: {0}</source>
        <translation>无法信任它：{0}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/lesson_panel.py" line="382"/>
        <source>Open lesson</source>
        <translation>打开课程</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/lesson_panel.py" line="383"/>
        <source>Lessons (*.md)</source>
        <translation>课程 (*.md)</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/lesson_panel.py" line="494"/>
        <source>Running step {0}…</source>
        <translation>正在运行第 {0} 步…</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/lesson_checks.py" line="51"/>
        <source>✗ Step {0} did not go as planned while replaying</source>
        <translation>✗ 重放时第 {0} 步没有按预期进行</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/lesson_checks.py" line="58"/>
        <source>Skipped: this step {0}.</source>
        <translation>已跳过：这一步{0}。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/lesson_checks.py" line="63"/>
        <source>✗ The code failed: {0}</source>
        <translation>✗ 代码出错：{0}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/lesson_checks.py" line="76"/>
        <source>This error is the point of this step:</source>
        <translation>这个错误正是这一步要演示的：</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/lesson_checks.py" line="79"/>
        <source>line {0}: </source>
        <translation>第 {0} 行：</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/lesson_panel.py" line="566"/>
        <source>Choose a lesson.</source>
        <translation>请选择一节课。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/lesson_panel.py" line="395"/>
        <location filename="../../src/tensor_explorer/qt/lesson_panel.py" line="570"/>
        <source>Step {0} of {1}</source>
        <translation>第 {0} 步，共 {1} 步</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/lesson_panel.py" line="155"/>
        <source>Reset starts the lesson again from step 1, which replaces them.</source>
        <extracomment>how much larger than the interface the lesson text is (it is read from the back of a room) asked before a lesson replaces the workspace (``what`` happens): True to go on the message shown instead of a step (its title, re-translated; its detail), if any</extracomment>
        <translation>重来会从第 1 步重新开始这个课程，这会替换掉它们。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/lesson_panel.py" line="157"/>
        <source>Going back replays the lesson from step 1, which replaces them.</source>
        <translation>后退会从第 1 步重新运行这个课程，这会替换掉它们。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/lesson_panel.py" line="353"/>
        <source>{0} came from a file and runs restricted: imports beyond torch, NumPy and math, file access and other risky calls are refused. Trust it only if you trust where it came from.</source>
        <translation>{0} 来自文件，正在受限模式下运行：除 torch、NumPy 和 math 以外的导入、文件访问及其他有风险的调用都会被拒绝。只有在你信任它的来源时才信任它。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/lesson_panel.py" line="572"/>
        <source>1 step</source>
        <translation>共 1 步</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/lesson_panel.py" line="573"/>
        <source>{0} steps</source>
        <translation>共 {0} 步</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <location filename="../../src/tensor_explorer/qt/app.py" line="89"/>
        <source>Tensor Explorer did not close cleanly last time. Restore the values and history it had?</source>
        <translation>Tensor Explorer 上次没有正常关闭。要恢复当时的值和历史吗？</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/app.py" line="108"/>
        <location filename="../../src/tensor_explorer/qt/window_files.py" line="179"/>
        <location filename="../../src/tensor_explorer/qt/window_files.py" line="309"/>
        <source>Could not open {0}</source>
        <translation>无法打开 {0}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="281"/>
        <source>Workspace</source>
        <translation>工作区</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="281"/>
        <source>Build</source>
        <translation>创建</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="282"/>
        <source>Inspector</source>
        <translation>检查器</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="282"/>
        <source>Values</source>
        <translation>数值</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="283"/>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="283"/>
        <source>Autograd graph</source>
        <translation>计算图</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="284"/>
        <source>Code bar · output</source>
        <translation>代码栏 · 输出</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="285"/>
        <source>Code</source>
        <translation>代码</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="371"/>
        <source>&amp;Open…</source>
        <translation>打开(&amp;O)…</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="280"/>
        <source>Lesson</source>
        <extracomment>set by the app after the window is made (absent in screenshots and tests) File ▸ Open recent (made with the menus, :func:`.main_menus.build`) parent of the actions one build of the UI makes (deleted when the UI is rebuilt) opening and saving files (File menu, drops, recent files, trust) where the docks go (remembered, default and lesson layouts, presentation mode) undo/redo of the workspace&apos;s changes, and whether there is unsaved work ask before unsaved work would be lost (the real app; not screenshots, tests, nor runs that must not wait on a person: TENSOR_EXPLORER_NO_DIALOGS) Edit ▸ Copy, Copy as NumPy literal, Find value</extracomment>
        <translation>课程</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="365"/>
        <source>&amp;New workspace</source>
        <translation>新建工作区(&amp;N)</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="366"/>
        <source>Start again with an empty workspace (Edit ▸ Undo brings it back)</source>
        <translation>从空工作区重新开始（编辑 ▸ 撤销可找回）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="368"/>
        <source>Reopen &amp;last session</source>
        <translation>重新打开上次的会话(&amp;L)</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="369"/>
        <source>The values and history the window had when it was last closed</source>
        <translation>窗口上次关闭时的值和历史</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="372"/>
        <source>Open .npy, .npz, .py, lesson .md or session .txs files</source>
        <translation>打开 .npy、.npz、.py、课程 .md 或会话 .txs 文件</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="374"/>
        <source>&amp;Save session…</source>
        <translation>保存会话(&amp;S)…</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="375"/>
        <source>Save every value, its gradient and the history in one .txs file</source>
        <translation>把所有值、梯度和历史保存到一个 .txs 文件中</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="377"/>
        <source>Save code as .py…</source>
        <translation>将代码另存为 .py…</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="379"/>
        <source>Export panel as image…</source>
        <translation>将面板导出为图片…</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="381"/>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="384"/>
        <source>&amp;Run code</source>
        <translation>运行代码(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="385"/>
        <source>Run the code bar (Ctrl+Enter)</source>
        <translation>运行代码栏（Ctrl+Enter）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="386"/>
        <source>&amp;Stop</source>
        <translation>停止(&amp;S)</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="387"/>
        <source>Stop the running program</source>
        <translation>停止正在运行的程序</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="389"/>
        <source>&amp;Dark theme</source>
        <translation>深色主题(&amp;D)</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="393"/>
        <source>&amp;Presentation mode</source>
        <translation>演示模式(&amp;P)</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="394"/>
        <source>Larger text and drawings for a projector (F5)</source>
        <translation>为投影仪放大文字和图形（F5）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="396"/>
        <source>Reset layout</source>
        <translation>重置布局</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_menus.py" line="49"/>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_menus.py" line="52"/>
        <source>Open &amp;recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_menus.py" line="66"/>
        <source>&amp;Edit</source>
        <translation>编辑(&amp;E)</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_menus.py" line="31"/>
        <source>&amp;Run</source>
        <translation>运行(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_menus.py" line="81"/>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_menus.py" line="87"/>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_menus.py" line="35"/>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_menus.py" line="36"/>
        <location filename="../../src/tensor_explorer/qt/main_menus.py" line="114"/>
        <source>Keyboard shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_menus.py" line="38"/>
        <location filename="../../src/tensor_explorer/qt/main_menus.py" line="120"/>
        <source>About Tensor Explorer</source>
        <translation>关于 Tensor Explorer</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_menus.py" line="42"/>
        <source>Main</source>
        <translation>主工具栏</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/window_files.py" line="144"/>
        <source>Open</source>
        <translation>打开</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/window_files.py" line="145"/>
        <source>Arrays and programs ({0})</source>
        <translation>数组和程序 ({0})</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/window_files.py" line="118"/>
        <location filename="../../src/tensor_explorer/qt/window_files.py" line="125"/>
        <source>Save session</source>
        <extracomment>background loads started here (cancelled when the window closes) the program from a file that ran restricted, for the Trust button: path, bytes, text the name of a session from elsewhere whose code waits for Trust (data opened) files to open once the program running now has finished (in the order asked) the window is closing: nothing more is opened</extracomment>
        <translation>保存会话</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/window_files.py" line="119"/>
        <source>Sessions (*.txs)</source>
        <translation>会话 (*.txs)</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/window_files.py" line="127"/>
        <source>a program is still running</source>
        <translation>仍有程序在运行</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/window_files.py" line="136"/>
        <source>Saved {0}</source>
        <translation>已保存 {0}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/window_files.py" line="161"/>
        <source>Opening the session “{0}” replaces them.</source>
        <translation>打开会话“{0}”会替换它们。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/window_files.py" line="191"/>
        <source>{0} came from a file and ran restricted: imports beyond torch, NumPy and math, file access and other risky calls are refused. Trust it only if you trust where it came from.</source>
        <translation>{0} 来自文件，已在受限模式下运行：除 torch、NumPy 和 math 以外的导入、文件访问及其他有风险的调用都会被拒绝。只有在你信任它的来源时才信任它。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/window_files.py" line="212"/>
        <source>Could not trust {0}</source>
        <translation>无法信任 {0}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/window_files.py" line="231"/>
        <source>{0} was not saved by this app for you, so its data opened but its code ({1}) did not run: modules of its own classes are shown by their parameters. Trust it only if you trust where it came from: Trust runs that code as full Python.</source>
        <translation>{0} 不是本应用为你保存的，所以只打开了它的数据，它的代码（{1}）没有运行：它自己定义的类的模块只显示其参数。只有在信任它的来源时才信任它：信任会把这段代码作为完整的 Python 运行。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/window_files.py" line="257"/>
        <source>Rebuilt {0}</source>
        <translation>已重建 {0}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/window_files.py" line="265"/>
        <source>Could not rebuild {0}</source>
        <translation>无法重建 {0}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/window_files.py" line="314"/>
        <source>Opening {0}…</source>
        <translation>正在打开 {0}…</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/window_files.py" line="331"/>
        <source>{0} opens when the running program has finished.</source>
        <translation>{0} 将在正在运行的程序结束后打开。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/window_files.py" line="299"/>
        <source>Opened {0}</source>
        <translation>已打开 {0}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="538"/>
        <location filename="../../src/tensor_explorer/qt/window_files.py" line="245"/>
        <source>Wait for the running program to finish (or stop it) first.</source>
        <translation>请先等待正在运行的程序结束（或停止它）。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="540"/>
        <source>A new workspace replaces them.</source>
        <translation>新建工作区会替换它们。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="568"/>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="569"/>
        <source>Running…</source>
        <translation>运行中…</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="577"/>
        <source>{0} values</source>
        <translation>{0} 个值</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="577"/>
        <source>1 value</source>
        <translation>1 个值</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="579"/>
        <source>selected: {0}</source>
        <translation>选中：{0}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_menus.py" line="102"/>
        <source>Open files</source>
        <translation>打开文件</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_menus.py" line="103"/>
        <source>Run the code bar</source>
        <translation>运行代码栏</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_menus.py" line="104"/>
        <source>Stop a running program</source>
        <translation>停止正在运行的程序</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_menus.py" line="105"/>
        <source>Rename value</source>
        <translation>重命名值</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_menus.py" line="106"/>
        <source>Delete value</source>
        <translation>删除值</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_menus.py" line="107"/>
        <source>Duplicate value (clone)</source>
        <translation>复制值（clone）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_menus.py" line="108"/>
        <source>Presentation mode</source>
        <translation>演示模式</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_menus.py" line="109"/>
        <source>Dark theme</source>
        <translation>深色主题</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_menus.py" line="110"/>
        <source>Export panel as image</source>
        <translation>将面板导出为图片</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_menus.py" line="121"/>
        <source>Tensor Explorer shows what a tensor is, which values share memory, and how autograd flows.</source>
        <translation>Tensor Explorer 展示张量是什么、哪些值共享内存，以及 autograd 如何流动。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/window_files.py" line="384"/>
        <source>Export panel</source>
        <translation>导出面板</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/window_files.py" line="386"/>
        <source>Panel:</source>
        <translation>面板：</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/window_files.py" line="391"/>
        <source>Images (*.png *.svg)</source>
        <translation>图片 (*.png *.svg)</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/window_files.py" line="397"/>
        <source>Export failed</source>
        <translation>导出失败</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="587"/>
        <source>Quitting closes them.</source>
        <translation>退出会关闭它们。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="588"/>
        <source>File ▸ Reopen last session brings them back at the next start.</source>
        <translation>下次启动时，文件 ▸ 重新打开上次的会话可以找回它们。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="589"/>
        <source>Discarded, they are lost.</source>
        <translation>丢弃后它们将无法找回。</translation>
    </message>
</context>
<context>
    <name>MemoryPanel</name>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_texts.py" line="29"/>
        <source>Each grey strip is one block of memory (an allocation), its bytes numbered from 0. Each coloured row under it is a value, drawn on the bytes it reads. Values in the same strip share memory; a separate strip is separate memory. Hover a cell to light up every element that reads the same bytes.</source>
        <translation>每个灰色条带是一块内存（一次分配），字节从 0 开始编号。条带下方每一行彩色格子是一个值，画在它读取的字节上。在同一条带中的值共享内存；不同条带就是不同的内存。把鼠标停在一个格子上，读取相同字节的所有元素都会亮起来。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_texts.py" line="40"/>
        <source>Values that share memory</source>
        <translation>共享内存的值</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_texts.py" line="50"/>
        <source>a</source>
        <translation>a</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_texts.py" line="50"/>
        <source>b</source>
        <translation>b</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_texts.py" line="51"/>
        <source>relation</source>
        <translation>关系</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_texts.py" line="51"/>
        <source>shared bytes</source>
        <translation>共享字节</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_texts.py" line="52"/>
        <source>why</source>
        <translation>原因</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_texts.py" line="154"/>
        <source>alias: the same bytes</source>
        <translation>别名：完全相同的字节</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_texts.py" line="155"/>
        <source>overlap: some bytes in common</source>
        <translation>重叠：有部分共同的字节</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_texts.py" line="156"/>
        <source>same storage, different bytes</source>
        <translation>同一存储，不同字节</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_texts.py" line="167"/>
        <source>Both read exactly the same bytes: writing one changes the other.</source>
        <translation>两者读取完全相同的字节：写入一个就会改变另一个。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_texts.py" line="169"/>
        <source>They share some bytes, and each has bytes the other lacks.</source>
        <translation>它们有部分共同的字节，并且各自都有对方没有的字节。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_texts.py" line="171"/>
        <source>One allocation, but no byte in common: writing one never changes the other.</source>
        <translation>同一块内存，但没有共同的字节：写入一个永远不会改变另一个。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_texts.py" line="33"/>
        <source>Hover a cell: its bytes and every element that reads them light up. Wheel over a strip zooms into its bytes; double-click zooms out.</source>
        <translation>鼠标停在格子上：它的字节以及读取这些字节的所有元素都会亮起。在条带上滚动滚轮可放大字节；双击缩小。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_texts.py" line="22"/>
        <source>Grey strip = one block of memory. Rows = values, drawn on the bytes they read. Same strip = shared memory. Hover a cell.</source>
        <translation>灰色条带 = 一块内存。每一行 = 一个值，画在它读取的字节上。同一条带 = 共享内存。把鼠标停在格子上试试。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_texts.py" line="150"/>
        <source>contains: {1} is part of {0}</source>
        <translation>包含：{1} 是 {0} 的一部分</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_texts.py" line="152"/>
        <source>inside: {0} is part of {1}</source>
        <translation>位于其中：{0} 是 {1} 的一部分</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_texts.py" line="163"/>
        <source>Every byte of {1} is also a byte of {0} ({1} is a slice, column or diagonal of {0}): writing {1} changes {0}.</source>
        <translation>{1} 的每个字节也是 {0} 的字节（{1} 是 {0} 的切片、列或对角线）：写入 {1} 会改变 {0}。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_texts.py" line="57"/>
        <source>overlap? counting…</source>
        <translation>重叠？正在计数…</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_texts.py" line="45"/>
        <source>The memory drawing failed: {0}</source>
        <translation>内存图绘制失败：{0}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_texts.py" line="68"/>
        <source>Counting the shared bytes of 1 pair…</source>
        <translation>正在计算 1 对值的共享字节…</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_texts.py" line="70"/>
        <source>Counting the shared bytes of {0} pairs…</source>
        <translation>正在计算 {0} 对值的共享字节…</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_texts.py" line="73"/>
        <source>Own memory (no other value reads its bytes): {0}</source>
        <translation>独占内存（没有其他值读取它的字节）：{0}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_texts.py" line="76"/>
        <source>Not tensors or arrays, not drawn: {0}</source>
        <translation>不是张量或数组，未绘制：{0}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_layout.py" line="299"/>
        <source>No tensors or arrays in the workspace yet.</source>
        <translation>工作区中还没有张量或数组。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_layout.py" line="284"/>
        <location filename="../../src/tensor_explorer/qt/memory_layout.py" line="380"/>
        <source>bytes</source>
        <extracomment>scene items are made for this far above and below the visible part (pixels, at scale 1) longest one turn of laying the drawing&apos;s rows out (the rest: next turns, one slice of :class:`~.memory_relations.Slices` each), and the rows it lays out at least (a screenful)</extracomment>
        <translation>字节</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_layout.py" line="350"/>
        <source>Only {0} reads this memory: it has bytes of its own.</source>
        <translation>只有 {0} 读取这块内存：它拥有自己的字节。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_layout.py" line="364"/>
        <source>no bytes</source>
        <translation>没有字节</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_layout.py" line="384"/>
        <source>bytes {0}–{1} of {2}, drawn as ranges</source>
        <translation>{2} 中的字节 {0}–{1}，按区间绘制</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_layout.py" line="386"/>
        <source>bytes {0}–{1} of {2}</source>
        <translation>{2} 中的字节 {0}–{1}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_texts.py" line="84"/>
        <source>Allocation {0}: none, on {1}</source>
        <translation>内存块 {0}：无，位于 {1}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_texts.py" line="87"/>
        <source>{0} bytes</source>
        <translation>{0} 字节</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_texts.py" line="89"/>
        <source> ({0} bytes)</source>
        <translation>（{0} 字节）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_texts.py" line="91"/>
        <source>Allocation {0}: {1}{2} on {3}</source>
        <translation>内存块 {0}：{1}{2}，位于 {3}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_texts.py" line="94"/>
        <source>, one cell = {0} bytes</source>
        <translation>，每格 = {0} 字节</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_texts.py" line="96"/>
        <source>, owner: {0}</source>
        <translation>，所有者：{0}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_texts.py" line="102"/>
        <source>tensor</source>
        <translation>张量</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_texts.py" line="103"/>
        <source>NumPy array</source>
        <translation>NumPy 数组</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_texts.py" line="108"/>
        <source>stride {0}</source>
        <translation>步长 {0}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_texts.py" line="109"/>
        <source>offset {0}</source>
        <translation>偏移 {0}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_texts.py" line="113"/>
        <source>version {0} → {1}</source>
        <translation>版本 {0} → {1}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_texts.py" line="116"/>
        <source>version {0}</source>
        <translation>版本 {0}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_texts.py" line="118"/>
        <source>up to {0} elements read one element&apos;s bytes</source>
        <translation>最多有 {0} 个元素读取同一个元素的字节</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_texts.py" line="120"/>
        <source>×{0}: each cell is read by {0} elements</source>
        <translation>×{0}：每个格子被 {0} 个元素读取</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_texts.py" line="130"/>
        <source>changed by the last write: {0} cell(s), outlined</source>
        <translation>被上次写入改变：{0} 个格子（已描边）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_texts.py" line="133"/>
        <source>; version unchanged: torch does not count writes made through NumPy</source>
        <translation>；版本号不变：torch 不记录通过 NumPy 的写入</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_texts.py" line="143"/>
        <source>alias of {0}: the same bytes</source>
        <translation>{0} 的别名：完全相同的字节</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_texts.py" line="144"/>
        <source>view inside {0}: part of its bytes</source>
        <translation>{0} 内部的视图：它的部分字节</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_hover.py" line="183"/>
        <source>: bytes {0}–{1} of allocation {2}.</source>
        <translation>：内存块 {2} 的字节 {0}–{1}。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_hover.py" line="191"/>
        <source> and {0} more</source>
        <translation> 以及另外 {0} 个</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_hover.py" line="194"/>
        <source>The same bytes are read by: {0}.</source>
        <translation>读取相同字节的还有：{0}。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_hover.py" line="197"/>
        <source>No other element reads these bytes.</source>
        <translation>没有其他元素读取这些字节。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_hover.py" line="201"/>
        <source>Not by {0}: separate memory.</source>
        <translation>{0} 不读取：它是独立的内存。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_hover.py" line="220"/>
        <source>Bytes {0}–{1} of allocation {2}</source>
        <translation>内存块 {2} 的字节 {0}–{1}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_hover.py" line="223"/>
        <source>read by {0}.</source>
        <translation>被 {0} 读取。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_hover.py" line="226"/>
        <source>no value reads them.</source>
        <translation>没有值读取它们。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_texts.py" line="66"/>
        <source>No two values share memory.</source>
        <translation>没有两个值共享内存。</translation>
    </message>
</context>
<context>
    <name>MultiscaleHeatmap</name>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_heatmap.py" line="160"/>
        <source>colours</source>
        <extracomment>colour ranges the heatmap offers (:meth:`MultiscaleHeatmap.set_levels_mode`) the region summary on screen: its blocks and where it starts (row, column) a marker of a few pixels on each preview cell that holds NaN/±Inf, at any zoom: in an overview a cell is 1–2 px, and 13 NaNs of a 4096² array were 7 invisible pixels</extracomment>
        <translation>颜色</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_heatmap.py" line="161"/>
        <source>min to max</source>
        <translation>最小到最大</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_heatmap.py" line="162"/>
        <source>{lo:g}% to {hi:g}%</source>
        <translation>{lo:g}% 到 {hi:g}%</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_heatmap.py" line="164"/>
        <source>± around 0</source>
        <translation>以 0 为中心 ±</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_heatmap.py" line="167"/>
        <source>Colour range of the heatmap: the exact smallest to largest value; the {lo:g}th to {hi:g}th percentile, estimated from up to {n} evenly spread elements; or symmetric around 0</source>
        <translation>热图的颜色范围：精确的最小值到最大值；第 {lo:g} 到第 {hi:g} 百分位数（由至多 {n} 个均匀分布的元素估计）；或以 0 为中心对称</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_heatmap.py" line="590"/>
        <source>{lo} to {hi}</source>
        <translation>{lo} 到 {hi}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_heatmap.py" line="596"/>
        <source>block [{r0}–{r1}, {c0}–{c1}]</source>
        <translation>区块 [{r0}–{r1}, {c0}–{c1}]</translation>
    </message>
</context>
<context>
    <name>RunController</name>
    <message>
        <location filename="../../src/tensor_explorer/qt/run_controller.py" line="50"/>
        <source>A program is still running; stop it first.</source>
        <translation>还有一个程序在运行；请先停止它。</translation>
    </message>
</context>
<context>
    <name>TableTools</name>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_table.py" line="264"/>
        <source>Go to index…</source>
        <translation>转到下标…</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_table.py" line="265"/>
        <source>Show and select the cell at an index you type</source>
        <translation>显示并选中你输入的下标所在的单元格</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_table.py" line="266"/>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_table.py" line="267"/>
        <source>Copy as CSV</source>
        <translation>复制为 CSV</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_table.py" line="268"/>
        <source>Copy as NumPy literal</source>
        <translation>复制为 NumPy 字面量</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_table.py" line="316"/>
        <source>Type an index, like 1, 1</source>
        <translation>请输入下标，例如 1, 1</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_table.py" line="318"/>
        <source>This value has no axes to go to</source>
        <translation>这个值没有可以转到的轴</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_table.py" line="320"/>
        <source>{text} is not a whole number</source>
        <translation>{text} 不是整数</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_table.py" line="322"/>
        <source>Give {ndim} indices, one per axis (got {given})</source>
        <translation>需要 {ndim} 个下标，每个轴一个（现在有 {given} 个）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_table.py" line="325"/>
        <source>{index} is outside axis {axis} (size {size})</source>
        <translation>{index} 超出了第 {axis} 轴的范围（长度 {size}）</translation>
    </message>
</context>
<context>
    <name>TrainingDialog</name>
    <message>
        <location filename="../../src/tensor_explorer/qt/training_dialog.py" line="91"/>
        <source>Training-step check</source>
        <extracomment>emitted when a check or step has been shown (it shadows the slot QDialog.done(int), which nothing here calls)</extracomment>
        <translation>训练步检查</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/training_dialog.py" line="92"/>
        <source>features:</source>
        <translation>特征：</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/training_dialog.py" line="93"/>
        <source>labels:</source>
        <translation>标签：</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/training_dialog.py" line="94"/>
        <source>model:</source>
        <translation>模型：</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/training_dialog.py" line="95"/>
        <source>device (one step):</source>
        <translation>设备（训练一步）：</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/training_dialog.py" line="99"/>
        <source>Check batch (inspect_batch)</source>
        <translation>检查批次（inspect_batch）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/training_dialog.py" line="100"/>
        <source>Run one step (run_one_step)</source>
        <translation>训练一步（run_one_step）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/training_dialog.py" line="101"/>
        <source>check</source>
        <translation>检查项</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/training_dialog.py" line="101"/>
        <source>result</source>
        <translation>结果</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/training_dialog.py" line="101"/>
        <source>message</source>
        <translation>说明</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/training_dialog.py" line="102"/>
        <source>parameter</source>
        <translation>参数</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/training_dialog.py" line="102"/>
        <source>‖grad‖</source>
        <translation>‖grad‖</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/training_dialog.py" line="104"/>
        <source>One step runs on a copy of the model (moved to the device, zero_grad, forward, cross-entropy, backward); the workspace&apos;s model is not changed.</source>
        <translation>训练一步在模型的副本上运行（移到设备、zero_grad、前向、交叉熵、反向）；工作区中的模型不会改变。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/training_dialog.py" line="149"/>
        <source>Choose features, labels and a model (an nn.Module in the workspace).</source>
        <translation>请选择特征、标签和模型（工作区中的 nn.Module）。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/training_dialog.py" line="197"/>
        <source>The check could not run: {0}</source>
        <translation>检查无法运行：{0}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/training_dialog.py" line="217"/>
        <source>not run</source>
        <translation>未运行</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/training_dialog.py" line="219"/>
        <source>pass</source>
        <translation>通过</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/training_dialog.py" line="221"/>
        <source>FAIL</source>
        <translation>失败</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/training_dialog.py" line="237"/>
        <source>Every check passed. logits: {0} {1} on {2}</source>
        <translation>所有检查都通过。logits：{0} {1}，位于 {2}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/training_dialog.py" line="241"/>
        <source>{0} check(s) failed: {1}</source>
        <translation>{0} 项检查未通过：{1}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/training_dialog.py" line="258"/>
        <source>logits: {0} {1} on {2}</source>
        <translation>logits：{0} {1}，位于 {2}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/training_dialog.py" line="261"/>
        <source>loss = {0:.6g}</source>
        <translation>loss = {0:.6g}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/training_dialog.py" line="263"/>
        <source>total ‖grad‖ = {0:.6g}</source>
        <translation>总 ‖grad‖ = {0:.6g}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/training_dialog.py" line="266"/>
        <source>The step did not run: {0}</source>
        <translation>这一步没有运行：{0}</translation>
    </message>
</context>
<context>
    <name>TrustBar</name>
    <message>
        <location filename="../../src/tensor_explorer/qt/trust_bar.py" line="48"/>
        <source>Trust and run again</source>
        <translation>信任并重新运行</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/trust_bar.py" line="50"/>
        <source>Run it as full Python (imports, files, everything), now and whenever this exact file is opened again</source>
        <translation>把它作为完整的 Python 运行（导入、文件，一切都可以），现在以及以后再打开这个文件（内容不变）时都如此</translation>
    </message>
</context>
<context>
    <name>UndoController</name>
    <message>
        <location filename="../../src/tensor_explorer/qt/undo_actions.py" line="74"/>
        <source>This change cannot be undone ({0}); what could be undone before it is forgotten.</source>
        <extracomment>the one rule of when replacing the workspace asks first (core)</extracomment>
        <translation>这一更改无法撤销（{0}）；之前可撤销的操作已清除。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/undo_actions.py" line="98"/>
        <source>&amp;Undo {0}</source>
        <translation>撤销 {0}(&amp;U)</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/undo_actions.py" line="99"/>
        <source>&amp;Undo</source>
        <translation>撤销(&amp;U)</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/undo_actions.py" line="100"/>
        <source>&amp;Redo {0}</source>
        <translation>重做 {0}(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/undo_actions.py" line="101"/>
        <source>&amp;Redo</source>
        <translation>重做(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/undo_actions.py" line="108"/>
        <source>Undid: {0}</source>
        <translation>已撤销：{0}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/undo_actions.py" line="112"/>
        <source>Redid: {0}</source>
        <translation>已重做：{0}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/undo_actions.py" line="118"/>
        <source>Wait for the running program to finish (or stop it) first.</source>
        <translation>请先等待正在运行的程序结束（或停止它）。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/undo_actions.py" line="136"/>
        <source>Unsaved work</source>
        <translation>未保存的工作</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/undo_actions.py" line="137"/>
        <source>The workspace has values you made that are not saved. {0}</source>
        <translation>工作区中有你创建但尚未保存的值。{0}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/undo_actions.py" line="139"/>
        <source>Save them in a session first? ({0})</source>
        <translation>要先把它们保存为会话吗？（{0}）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/undo_actions.py" line="140"/>
        <source>Edit ▸ Undo also brings them back.</source>
        <translation>编辑 ▸ 撤销也能找回它们。</translation>
    </message>
</context>
<context>
    <name>ValuesDock</name>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="88"/>
        <source>this value is not in the workspace</source>
        <extracomment>panels built only when first shown or used (start-up builds what is visible)</extracomment>
        <translation>这个值不在工作区中</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="94"/>
        <source>a program is still running</source>
        <translation>仍有程序在运行</translation>
    </message>
</context>
<context>
    <name>ValuesPanel</name>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_controls.py" line="80"/>
        <source>Chart</source>
        <extracomment>the index at which every axis that is not displayed is held</extracomment>
        <translation>图表</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_controls.py" line="81"/>
        <source>Table</source>
        <translation>表格</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_controls.py" line="82"/>
        <source>Draw the values (number, plot or heatmap) or list them in a table</source>
        <translation>以图形（数字、曲线或热图）显示数值，或以表格列出</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_controls.py" line="84"/>
        <source>show</source>
        <translation>显示</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_controls.py" line="86"/>
        <source>magnitude |z|</source>
        <translation>模 |z|</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_controls.py" line="87"/>
        <source>phase (radians)</source>
        <translation>相位（弧度）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_controls.py" line="88"/>
        <location filename="../../src/tensor_explorer/qt/values_status.py" line="46"/>
        <source>real part</source>
        <translation>实部</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_controls.py" line="89"/>
        <location filename="../../src/tensor_explorer/qt/values_status.py" line="47"/>
        <source>imaginary part</source>
        <translation>虚部</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_controls.py" line="90"/>
        <source>Which part of the complex numbers is drawn</source>
        <translation>绘制复数的哪一部分</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_controls.py" line="92"/>
        <source>rows</source>
        <translation>行</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_controls.py" line="93"/>
        <source>columns</source>
        <translation>列</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_controls.py" line="94"/>
        <source>The axis drawn downwards</source>
        <translation>纵向绘制的轴</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_controls.py" line="95"/>
        <source>The axis drawn across</source>
        <translation>横向绘制的轴</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_status.py" line="162"/>
        <source>computing preview… %p%</source>
        <translation>正在计算预览… %p%</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_panel.py" line="195"/>
        <location filename="../../src/tensor_explorer/qt/values_panel.py" line="231"/>
        <source>No value selected.</source>
        <extracomment>every view the panel can show (``ValuesPanel.current_view()``) most cells of a 2-d plane (heatmap or table) and of a 1-d one (plot or table)</extracomment>
        <translation>未选择任何值。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_table.py" line="363"/>
        <source>Not copied: {cells} cells are selected; at most {limit} can be copied</source>
        <translation>未复制：选中了 {cells} 个单元格，最多只能复制 {limit} 个</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_table.py" line="368"/>
        <source>Nothing to copy: select cells in the table</source>
        <translation>没有可复制的内容：请先在表格中选中单元格</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_table.py" line="379"/>
        <source>Copied 1 cell</source>
        <translation>已复制 1 个单元格</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_table.py" line="380"/>
        <source>Copied {n} cells</source>
        <translation>已复制 {n} 个单元格</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_status.py" line="31"/>
        <source>(unnamed)</source>
        <translation>（未命名）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_status.py" line="35"/>
        <source>scalar</source>
        <translation>标量</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_status.py" line="65"/>
        <source>meta tensor: it has a shape {shape} and a dtype ({dtype}) but no data to show</source>
        <translation>meta 张量：它有形状 {shape} 和 dtype（{dtype}），但没有可显示的数据</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_status.py" line="67"/>
        <source>nested tensor: its rows have different lengths; not shown</source>
        <translation>嵌套张量：各行长度不同，无法显示</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_status.py" line="69"/>
        <source>sparse tensor ({layout}): convert it with .to_dense() to see its values</source>
        <translation>稀疏张量（{layout}）：先用 .to_dense() 转换才能看到它的值</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_status.py" line="71"/>
        <source>quantized tensor: call .dequantize() to see its values</source>
        <translation>量化张量：先调用 .dequantize() 才能看到它的值</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_status.py" line="73"/>
        <source>not a tensor or an array: {type}</source>
        <translation>不是张量也不是数组：{type}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_status.py" line="74"/>
        <source>a record with the fields {fields}: each field is a value of its own (expand the record in the Workspace and select one)</source>
        <translation>这是一个记录，字段有 {fields}：每个字段都是一个独立的值（在工作区里展开这个记录，选中其中一个）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_status.py" line="77"/>
        <source>values of dtype {dtype} are not numbers; not shown</source>
        <translation>dtype 为 {dtype} 的值不是数字，无法显示</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_status.py" line="79"/>
        <source>empty: shape {shape} has no elements</source>
        <translation>空值：形状 {shape} 中没有元素</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_status.py" line="134"/>
        <source>in all</source>
        <translation>（全部）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_controls.py" line="111"/>
        <source>axis {axis} ({size})</source>
        <translation>轴 {axis}（{size}）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_controls.py" line="105"/>
        <location filename="../../src/tensor_explorer/qt/values_controls.py" line="156"/>
        <location filename="../../src/tensor_explorer/qt/values_panel.py" line="449"/>
        <location filename="../../src/tensor_explorer/qt/values_panel.py" line="450"/>
        <source>axis {axis}</source>
        <translation>轴 {axis}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_controls.py" line="115"/>
        <source>Which index of axis {axis} is shown</source>
        <translation>显示轴 {axis} 的哪个下标</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_controls.py" line="177"/>
        <source>index {i} of 0–{last}</source>
        <translation>下标 {i}（0–{last}）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_status.py" line="166"/>
        <source>computing preview…</source>
        <translation>正在计算预览…</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_plot.py" line="119"/>
        <source>index</source>
        <translation>下标</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_status.py" line="44"/>
        <source>magnitude</source>
        <translation>模</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_status.py" line="45"/>
        <source>phase</source>
        <translation>相位</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_status.py" line="92"/>
        <source>preview: 1 of every {r} elements of {size}</source>
        <translation>预览：{size} 中每 {r} 个元素取 1 个</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_status.py" line="96"/>
        <source>preview: 1 of every {r} rows and 1 of every {c} columns of {size}</source>
        <translation>预览：{size} 中每 {r} 行取 1 行、每 {c} 列取 1 列</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_status.py" line="101"/>
        <source>zoomed in: exact elements</source>
        <translation>已放大：显示的是精确元素</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_status.py" line="103"/>
        <source>each cell drawn as the extreme of its block</source>
        <translation>每个格子画的是它所在区块的极值</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_status.py" line="105"/>
        <source>looking for NaN, Inf and extremes…</source>
        <translation>正在查找 NaN、Inf 和极值…</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_status.py" line="107"/>
        <source>1 = True, 0 = False</source>
        <translation>1 = True，0 = False</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_status.py" line="120"/>
        <source>showing {expr}</source>
        <translation>显示 {expr}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_status.py" line="134"/>
        <source>shown</source>
        <translation>已显示</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_status.py" line="184"/>
        <source>Not written: </source>
        <translation>未写入：</translation>
    </message>
</context>
<context>
    <name>WorkspacePanel</name>
    <message>
        <location filename="../../src/tensor_explorer/qt/workspace_panel.py" line="122"/>
        <source>No values yet.
Open a .npy/.npz file, use the Build form,
or type code below.</source>
        <extracomment>names a value may not take: the pre-bound modules per module root: the module and :func:`first_names` of it (until the next refresh) how many member rows a module row shows when it is made again (after &quot;… more&quot;) the expanded rows of each module as paths under it (&quot;&quot; the module&apos;s own row), by ``id`` of the module and by its name (see :meth:`_remember_expanded`) the &quot;… more&quot; row just chosen (its next rows are made once the event is over)</extracomment>
        <translation>还没有任何值。
打开 .npy/.npz 文件、使用“创建”表单，
或在下方输入代码。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/workspace_panel.py" line="124"/>
        <source>Rename…</source>
        <translation>重命名…</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/workspace_panel.py" line="125"/>
        <source>Duplicate (clone)</source>
        <translation>复制（clone）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/workspace_panel.py" line="126"/>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/workspace_panel.py" line="161"/>
        <source>Copy code: {0}</source>
        <translation>复制代码：{0}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/workspace_panel.py" line="169"/>
        <source>Move to device</source>
        <translation>移动到设备</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/workspace_panel.py" line="174"/>
        <source>Convert dtype</source>
        <translation>转换 dtype</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/workspace_panel.py" line="205"/>
        <source>Rename</source>
        <translation>重命名</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/workspace_panel.py" line="206"/>
        <source>New name for {0}:</source>
        <translation>{0} 的新名称：</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/workspace_panel.py" line="216"/>
        <source>{0!r} is not a valid Python name</source>
        <translation>{0!r} 不是合法的 Python 名称</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/workspace_panel.py" line="218"/>
        <source>{0} is the name of a module; renaming a value to it would hide the module</source>
        <translation>{0} 是模块名；把值改成这个名字会遮住该模块</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/workspace_panel.py" line="221"/>
        <source>{0} is already a value; delete or rename it first</source>
        <translation>{0} 已经是一个值；请先删除或重命名它</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/workspace_panel.py" line="223"/>
        <source>Rename refused: {0}.</source>
        <translation>拒绝重命名：{0}。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/workspace_rows.py" line="268"/>
        <source>… {0} more</source>
        <extracomment>what the row shows: &quot;value&quot; (a workspace value), &quot;parameter&quot;, &quot;buffer&quot;, &quot;module&quot; (members of a module) or &quot;more&quot; (the row that shows the next members) the text drawn for the row (the name relative to its module for members) a module row whose members are not made yet: True until it is first expanded members: the qualified name of the first place of a shared tensor or module, or None &quot;… more&quot; rows: how many members are not shown yet members: the tooltip&apos;s code part (how to reach it, its badges) values: ``id`` of the value (a module renamed keeps its rows expanded) member rows made at a time under one module</extracomment>
        <translation>…… 还有 {0} 个</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/workspace_rows.py" line="269"/>
        <source>Select to show the next {0}.</source>
        <translation>选中以显示接下来的 {0} 个。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/workspace_rows.py" line="278"/>
        <source>The same module as {0}; its members are listed there.</source>
        <translation>与 {0} 是同一个模块；它的成员列在那里。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/workspace_rows.py" line="280"/>
        <source>The same tensor as {0}: a change to one is a change to the other.</source>
        <translation>与 {0} 是同一个张量：改动其中一个就是改动另一个。</translation>
    </message>
</context>
</TS>
