<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>BuildPanel</name>
    <message>
        <location filename="../../src/tensor_explorer/qt/build_panel.py" line="52"/>
        <location filename="../../src/tensor_explorer/qt/build_panel.py" line="56"/>
        <source>default</source>
        <extracomment>which text fields each factory uses</extracomment>
        <translation>默认</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/build_panel.py" line="59"/>
        <source>requires_grad</source>
        <translation>requires_grad</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/build_panel.py" line="60"/>
        <source>seed</source>
        <translation>种子</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/build_panel.py" line="73"/>
        <source>Create</source>
        <translation>创建</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/build_panel.py" line="77"/>
        <source>name</source>
        <translation>名称</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/build_panel.py" line="78"/>
        <source>factory</source>
        <translation>工厂函数</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/build_panel.py" line="80"/>
        <source>values</source>
        <translation>值</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/build_panel.py" line="81"/>
        <source>shape</source>
        <translation>形状</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/build_panel.py" line="82"/>
        <source>fill value</source>
        <translation>填充值</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/build_panel.py" line="83"/>
        <source>start</source>
        <translation>起点</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/build_panel.py" line="84"/>
        <source>end</source>
        <translation>终点</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/build_panel.py" line="85"/>
        <source>step</source>
        <translation>步长</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/build_panel.py" line="86"/>
        <source>steps</source>
        <translation>点数</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/build_panel.py" line="87"/>
        <source>random seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/build_panel.py" line="91"/>
        <source>dtype</source>
        <translation>dtype</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/build_panel.py" line="92"/>
        <source>device</source>
        <translation>设备</translation>
    </message>
</context>
<context>
    <name>CodePanel</name>
    <message>
        <location filename="../../src/tensor_explorer/qt/code_panel.py" line="23"/>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/code_panel.py" line="25"/>
        <source>Save as .py…</source>
        <translation>另存为 .py…</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/code_panel.py" line="52"/>
        <location filename="../../src/tensor_explorer/qt/code_panel.py" line="57"/>
        <source>Save script</source>
        <translation>保存脚本</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/code_panel.py" line="52"/>
        <source>Python (*.py)</source>
        <translation>Python 文件 (*.py)</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/code_panel.py" line="58"/>
        <source>Could not save: {0}</source>
        <translation>无法保存：{0}</translation>
    </message>
</context>
<context>
    <name>ConsolePanel</name>
    <message>
        <location filename="../../src/tensor_explorer/qt/console_panel.py" line="76"/>
        <source>Type statements, e.g.  y = x @ w + b   — Ctrl+Enter runs them</source>
        <translation>输入语句，例如  y = x @ w + b   — Ctrl+Enter 运行</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/console_panel.py" line="79"/>
        <source>Device that factories (torch.zeros, torch.randn...) create tensors on</source>
        <translation>工厂函数（torch.zeros、torch.randn…）创建张量时使用的设备</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/console_panel.py" line="81"/>
        <source>default device</source>
        <translation>默认设备</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/console_panel.py" line="86"/>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/console_panel.py" line="87"/>
        <source>Run the statements (Ctrl+Enter)</source>
        <translation>运行这些语句（Ctrl+Enter）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/console_panel.py" line="89"/>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/console_panel.py" line="90"/>
        <source>Stop a running program; the workspace keeps what it had</source>
        <translation>停止正在运行的程序；工作区保留已有内容</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/console_panel.py" line="94"/>
        <source>Clear output</source>
        <translation>清空输出</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/console_panel.py" line="99"/>
        <source>device:</source>
        <translation>设备：</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/console_panel.py" line="171"/>
        <source>bound or changed: {0}</source>
        <translation>绑定或修改：{0}</translation>
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
    <name>GraphPanel</name>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_panel.py" line="41"/>
        <source>node</source>
        <translation>节点</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_panel.py" line="41"/>
        <source>kind</source>
        <translation>类别</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_panel.py" line="41"/>
        <source>value</source>
        <translation>值</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_panel.py" line="56"/>
        <source>No value has a grad_fn yet: compute something from a tensor with requires_grad=True.</source>
        <translation>还没有带 grad_fn 的值：用 requires_grad=True 的张量计算一些结果吧。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/graph_panel.py" line="61"/>
        <source>Autograd graph of {0}: {1} nodes</source>
        <translation>{0} 的计算图：{1} 个节点</translation>
    </message>
</context>
<context>
    <name>Inspector</name>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="32"/>
        <source>What it is</source>
        <extracomment>values with at most this many elements get their statistics synchronously</extracomment>
        <translation>基本信息</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="33"/>
        <source>kind</source>
        <translation>类别</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="33"/>
        <source>Whether this is a torch tensor or a NumPy array.</source>
        <translation>这是 torch 张量还是 NumPy 数组。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="34"/>
        <source>shape</source>
        <translation>形状</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="34"/>
        <source>The size along each axis; its length is the number of dimensions.</source>
        <translation>每个轴上的大小；它的长度就是维数。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="35"/>
        <source>dtype</source>
        <translation>dtype</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="35"/>
        <source>The type of every element: it decides precision, range and which operations are allowed.</source>
        <translation>每个元素的类型：决定精度、取值范围以及允许哪些运算。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="36"/>
        <source>device</source>
        <translation>设备</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="36"/>
        <source>Where the data lives (cpu, cuda:0...); tensors in one operation must share a device.</source>
        <translation>数据所在的位置（cpu、cuda:0…）；同一运算中的张量必须在同一设备上。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="37"/>
        <source>elements</source>
        <translation>元素数</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="37"/>
        <source>How many elements there are: the product of the shape.</source>
        <translation>元素个数：形状各维的乘积。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="39"/>
        <source>Memory layout</source>
        <translation>内存布局</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="40"/>
        <source>stride</source>
        <translation>步长 stride</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="40"/>
        <source>How many elements to skip in memory to move one step along each axis.</source>
        <translation>沿每个轴前进一步时，在内存中要跳过多少个元素。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="41"/>
        <source>storage offset</source>
        <translation>存储偏移</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="41"/>
        <source>Where the first element sits in its storage, counted in elements.</source>
        <translation>第一个元素在存储中的位置（以元素计）。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="42"/>
        <source>contiguous</source>
        <translation>连续</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="42"/>
        <source>True when the elements lie in memory in row-major order with no gaps; view() needs this.</source>
        <translation>元素在内存中按行优先顺序无间隙排列时为 True；view() 需要这一点。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="43"/>
        <source>element size</source>
        <translation>元素大小</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="43"/>
        <source>Bytes per element.</source>
        <translation>每个元素的字节数。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="44"/>
        <source>bytes</source>
        <translation>字节数</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="44"/>
        <source>Bytes the elements would need: elements x element size.</source>
        <translation>这些元素需要的字节数：元素数 × 元素大小。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="45"/>
        <source>storage bytes</source>
        <translation>存储字节数</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="45"/>
        <source>Bytes of the whole allocation this value looks into (views share it).</source>
        <translation>该值所引用的整块内存的字节数（视图共享它）。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="46"/>
        <source>internal overlap</source>
        <translation>内部重叠</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="46"/>
        <source>True when two elements read the same bytes (after expand): in-place writes are unsafe.</source>
        <translation>两个元素读取相同字节时为 True（如 expand 之后）：原地写入不安全。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="47"/>
        <source>is a view</source>
        <translation>是视图</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="47"/>
        <source>True when this value looks into memory owned by another value.</source>
        <translation>该值引用的是另一个值拥有的内存时为 True。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="48"/>
        <source>memory-mapped file</source>
        <translation>内存映射文件</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="48"/>
        <source>The file whose pages hold these bytes, read only when used; edits never reach the file.</source>
        <translation>保存这些字节的文件，用到时才读取；修改不会写回文件。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="49"/>
        <source>byte order</source>
        <translation>字节序</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="49"/>
        <source>The order of bytes in each element; torch needs this machine&apos;s order.</source>
        <translation>每个元素内字节的排列顺序；torch 需要本机字节序。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="50"/>
        <source>writeable</source>
        <translation>可写</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="50"/>
        <source>Whether the memory can be written to.</source>
        <translation>这块内存是否可以写入。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="52"/>
        <source>Autograd</source>
        <translation>自动微分</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="53"/>
        <source>requires_grad</source>
        <translation>requires_grad</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="53"/>
        <source>True when autograd records operations on this tensor so gradients can flow to it.</source>
        <translation>autograd 会记录对该张量的运算、梯度能流到它时为 True。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="54"/>
        <source>is leaf</source>
        <translation>叶子节点</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="54"/>
        <source>True for tensors created by you rather than computed; only leaves get .grad filled by backward().</source>
        <translation>由你直接创建（而非计算得到）的张量为 True；backward() 只填充叶子张量的 .grad。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="55"/>
        <source>grad_fn</source>
        <translation>grad_fn</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="55"/>
        <source>The autograd node that made this tensor; backward() starts here.</source>
        <translation>生成该张量的 autograd 节点；backward() 从这里开始。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="56"/>
        <source>grad</source>
        <translation>梯度 grad</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="56"/>
        <source>The accumulated gradient (shape and norm), or None.</source>
        <translation>累积的梯度（形状和范数），或 None。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="57"/>
        <source>retains grad</source>
        <translation>保留梯度</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="57"/>
        <source>True after retain_grad(): this non-leaf keeps its gradient.</source>
        <translation>调用 retain_grad() 后为 True：这个非叶子张量会保留梯度。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="58"/>
        <source>version</source>
        <translation>版本号</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="58"/>
        <source>Counts in-place changes; autograd uses it to detect a saved tensor that was modified.</source>
        <translation>记录原地修改的次数；autograd 用它发现被修改过的已保存张量。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="59"/>
        <source>inference tensor</source>
        <translation>推理张量</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="59"/>
        <source>Made under torch.inference_mode(): it can never enter autograd.</source>
        <translation>在 torch.inference_mode() 下创建：永远不能进入 autograd。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="60"/>
        <source>parameter</source>
        <translation>参数</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="60"/>
        <source>An nn.Parameter: a leaf that a module trains.</source>
        <translation>nn.Parameter：由模块训练的叶子张量。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="65"/>
        <source>min</source>
        <translation>最小值</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="65"/>
        <source>The smallest finite value.</source>
        <translation>最小的有限值。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="66"/>
        <source>max</source>
        <translation>最大值</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="66"/>
        <source>The largest finite value.</source>
        <translation>最大的有限值。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="67"/>
        <source>mean</source>
        <translation>均值</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="67"/>
        <source>The average of the finite values (accumulated in float64).</source>
        <translation>有限值的平均值（以 float64 累加）。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="68"/>
        <source>std</source>
        <translation>标准差</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="68"/>
        <source>The standard deviation of the finite values (population, ddof=0).</source>
        <translation>有限值的标准差（总体，ddof=0）。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="69"/>
        <source>NaN</source>
        <translation>NaN</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="69"/>
        <source>How many elements are Not a Number.</source>
        <translation>有多少个元素是 NaN（非数）。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="70"/>
        <source>+Inf</source>
        <translation>+Inf</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="70"/>
        <source>How many elements are positive infinity.</source>
        <translation>有多少个元素是正无穷。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="71"/>
        <source>-Inf</source>
        <translation>-Inf</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="71"/>
        <source>How many elements are negative infinity.</source>
        <translation>有多少个元素是负无穷。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="72"/>
        <source>zeros</source>
        <translation>零的个数</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="72"/>
        <source>How many elements are exactly zero.</source>
        <translation>恰好等于零的元素个数。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="73"/>
        <source>first non-finite</source>
        <translation>第一个非有限值</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="73"/>
        <source>The index of the first NaN or Inf, in row-major order.</source>
        <translation>按行优先顺序第一个 NaN 或 Inf 的下标。</translation>
    </message>
</context>
<context>
    <name>InspectorPanel</name>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="111"/>
        <source>fact</source>
        <translation>属性</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="111"/>
        <source>value</source>
        <translation>值</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="118"/>
        <source>statistics %p%</source>
        <translation>统计 %p%</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="194"/>
        <source>Value</source>
        <translation>值</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="196"/>
        <source>repr</source>
        <translation>repr</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="235"/>
        <source>Parameters</source>
        <translation>参数</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="240"/>
        <source>training mode</source>
        <translation>训练模式</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="241"/>
        <source>train() vs eval(): dropout and batch norm behave differently.</source>
        <translation>train() 与 eval()：dropout 和 batch norm 的行为不同。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="247"/>
        <source>How it was made</source>
        <translation>如何得到</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="249"/>
        <source>source</source>
        <translation>来源</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="249"/>
        <source>handed in (file or explore())</source>
        <translation>直接传入（文件或 explore()）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="252"/>
        <source>statement</source>
        <translation>语句</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="253"/>
        <source>The code that bound this name.</source>
        <translation>绑定这个名字的代码。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="255"/>
        <source>grad mode</source>
        <translation>梯度模式</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="256"/>
        <source>The autograd mode in force when it was made.</source>
        <translation>创建时生效的 autograd 模式。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="259"/>
        <source>memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="301"/>
        <source>Statistics failed: {0}</source>
        <translation>统计失败：{0}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="310"/>
        <source>Statistics</source>
        <translation>统计</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/inspector_panel.py" line="311"/>
        <source> (of |z|)</source>
        <translation>（|z| 的统计）</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <location filename="../../src/tensor_explorer/qt/app.py" line="85"/>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="406"/>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="429"/>
        <source>Could not open {0}</source>
        <extracomment>the program shown when the app starts with nothing to open (until lessons take over)</extracomment>
        <translation>无法打开 {0}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="203"/>
        <source>Workspace</source>
        <extracomment>panel name -&gt; (dock area, tab group) of the default layout</extracomment>
        <translation>工作区</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="203"/>
        <source>Build</source>
        <translation>创建</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="204"/>
        <source>Inspector</source>
        <translation>检查器</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="204"/>
        <source>Values</source>
        <translation>数值</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="205"/>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="205"/>
        <source>Autograd graph</source>
        <translation>计算图</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="206"/>
        <source>Code bar · output</source>
        <translation>代码栏 · 输出</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="207"/>
        <source>Code</source>
        <translation>代码</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="265"/>
        <source>&amp;Open…</source>
        <translation>打开(&amp;O)…</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="266"/>
        <source>Open .npy, .npz or .py files</source>
        <translation>打开 .npy、.npz 或 .py 文件</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="267"/>
        <source>Save code as .py…</source>
        <translation>将代码另存为 .py…</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="270"/>
        <source>Export panel as image…</source>
        <translation>将面板导出为图片…</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="272"/>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="273"/>
        <source>&amp;Run code</source>
        <translation>运行代码(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="274"/>
        <source>Run the code bar (Ctrl+Enter)</source>
        <translation>运行代码栏（Ctrl+Enter）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="275"/>
        <source>&amp;Stop</source>
        <translation>停止(&amp;S)</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="276"/>
        <source>Stop the running program</source>
        <translation>停止正在运行的程序</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="278"/>
        <source>&amp;Dark theme</source>
        <translation>深色主题(&amp;D)</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="281"/>
        <source>&amp;Presentation mode</source>
        <translation>演示模式(&amp;P)</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="283"/>
        <source>Larger text and drawings for a projector (F5)</source>
        <translation>为投影仪放大文字和图形（F5）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="286"/>
        <source>Reset layout</source>
        <translation>重置布局</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="288"/>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="290"/>
        <source>Open &amp;recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="297"/>
        <source>&amp;Edit</source>
        <translation>编辑(&amp;E)</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="302"/>
        <source>&amp;Run</source>
        <translation>运行(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="305"/>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="311"/>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="321"/>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="322"/>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="489"/>
        <source>Keyboard shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="324"/>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="493"/>
        <source>About Tensor Explorer</source>
        <translation>关于 Tensor Explorer</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="325"/>
        <source>Main</source>
        <translation>主工具栏</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="385"/>
        <source>Open</source>
        <translation>打开</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="385"/>
        <source>Arrays and programs ({0})</source>
        <translation>数组和程序 ({0})</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="419"/>
        <source>Opening {0}…</source>
        <translation>正在打开 {0}…</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="425"/>
        <source>Opened {0}</source>
        <translation>已打开 {0}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="465"/>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="466"/>
        <source>Running…</source>
        <translation>运行中…</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="473"/>
        <source>{0} values</source>
        <translation>{0} 个值</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="475"/>
        <source>selected: {0}</source>
        <translation>选中：{0}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="481"/>
        <source>Open files</source>
        <translation>打开文件</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="481"/>
        <source>Run the code bar</source>
        <translation>运行代码栏</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="482"/>
        <source>Stop a running program</source>
        <translation>停止正在运行的程序</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="482"/>
        <source>Rename value</source>
        <translation>重命名值</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="483"/>
        <source>Delete value</source>
        <translation>删除值</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="483"/>
        <source>Duplicate value (clone)</source>
        <translation>复制值（clone）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="484"/>
        <source>Presentation mode</source>
        <translation>演示模式</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="484"/>
        <source>Dark theme</source>
        <translation>深色主题</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="485"/>
        <source>Export panel as image</source>
        <translation>将面板导出为图片</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="494"/>
        <source>Tensor Explorer shows what a tensor is, which values share memory, and how autograd flows.</source>
        <translation>Tensor Explorer 展示张量是什么、哪些值共享内存，以及 autograd 如何流动。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="501"/>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="506"/>
        <source>Export panel</source>
        <translation>导出面板</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="502"/>
        <source>Panel:</source>
        <translation>面板：</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="506"/>
        <source>Images (*.png *.svg)</source>
        <translation>图片 (*.png *.svg)</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/main_window.py" line="512"/>
        <source>Export failed</source>
        <translation>导出失败</translation>
    </message>
</context>
<context>
    <name>MemoryPanel</name>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_panel.py" line="25"/>
        <source>a</source>
        <translation>a</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_panel.py" line="25"/>
        <source>b</source>
        <translation>b</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_panel.py" line="25"/>
        <source>relation</source>
        <translation>关系</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_panel.py" line="25"/>
        <source>shared bytes</source>
        <translation>共享字节</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_panel.py" line="26"/>
        <source>why</source>
        <translation>原因</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_panel.py" line="53"/>
        <source>Relations could not be computed: {0}</source>
        <translation>无法计算关系：{0}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_panel.py" line="56"/>
        <source>No two values share memory.</source>
        <translation>没有两个值共享内存。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/memory_panel.py" line="57"/>
        <source>Values that share memory:</source>
        <translation>共享内存的值：</translation>
    </message>
</context>
<context>
    <name>ValuesPanel</name>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_panel.py" line="228"/>
        <source>Chart</source>
        <extracomment>every view the panel can show (``ValuesPanel.current_view()``)</extracomment>
        <translation>图表</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_panel.py" line="229"/>
        <source>Table</source>
        <translation>表格</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_panel.py" line="230"/>
        <source>Draw the values (number, plot or heatmap) or list them in a table</source>
        <translation>以图形（数字、曲线或热图）显示数值，或以表格列出</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_panel.py" line="233"/>
        <source>show</source>
        <translation>显示</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_panel.py" line="235"/>
        <source>magnitude |z|</source>
        <translation>模 |z|</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_panel.py" line="236"/>
        <source>phase (radians)</source>
        <translation>相位（弧度）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_panel.py" line="237"/>
        <location filename="../../src/tensor_explorer/qt/values_panel.py" line="745"/>
        <source>real part</source>
        <translation>实部</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_panel.py" line="237"/>
        <location filename="../../src/tensor_explorer/qt/values_panel.py" line="745"/>
        <source>imaginary part</source>
        <translation>虚部</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_panel.py" line="239"/>
        <source>Which part of the complex numbers is drawn</source>
        <translation>绘制复数的哪一部分</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_panel.py" line="241"/>
        <source>rows</source>
        <translation>行</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_panel.py" line="243"/>
        <source>columns</source>
        <translation>列</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_panel.py" line="247"/>
        <source>The axis drawn downwards</source>
        <translation>纵向绘制的轴</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_panel.py" line="248"/>
        <source>The axis drawn across</source>
        <translation>横向绘制的轴</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_panel.py" line="316"/>
        <source>computing preview… %p%</source>
        <translation>正在计算预览… %p%</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_panel.py" line="354"/>
        <source>No value selected.</source>
        <translation>未选择任何值。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_panel.py" line="470"/>
        <source>(unnamed)</source>
        <translation>（未命名）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_panel.py" line="473"/>
        <source>scalar</source>
        <translation>标量</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_panel.py" line="492"/>
        <source>axis {axis} ({size})</source>
        <translation>轴 {axis}（{size}）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_panel.py" line="518"/>
        <location filename="../../src/tensor_explorer/qt/values_panel.py" line="739"/>
        <location filename="../../src/tensor_explorer/qt/values_panel.py" line="740"/>
        <source>axis {axis}</source>
        <translation>轴 {axis}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_panel.py" line="523"/>
        <source>Which index of axis {axis} is shown</source>
        <translation>显示轴 {axis} 的哪个下标</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_panel.py" line="539"/>
        <source>index {i} of 0–{last}</source>
        <translation>下标 {i}（0–{last}）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_panel.py" line="596"/>
        <source>computing preview…</source>
        <translation>正在计算预览…</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_panel.py" line="711"/>
        <source>index</source>
        <translation>下标</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_panel.py" line="744"/>
        <source>magnitude</source>
        <translation>模</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_panel.py" line="744"/>
        <source>phase</source>
        <translation>相位</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_panel.py" line="753"/>
        <source>preview: 1 of every {r} elements of {size}</source>
        <translation>预览：{size} 中每 {r} 个元素取 1 个</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_panel.py" line="757"/>
        <source>preview: 1 of every {r} rows and 1 of every {c} columns of {size}</source>
        <translation>预览：{size} 中每 {r} 行取 1 行、每 {c} 列取 1 列</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_panel.py" line="763"/>
        <source>showing {expr}</source>
        <translation>显示 {expr}</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_panel.py" line="775"/>
        <source>shown</source>
        <translation>已显示</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/values_panel.py" line="778"/>
        <source>row and column headers give the true index</source>
        <translation>行列标题给出真实下标</translation>
    </message>
</context>
<context>
    <name>WorkspacePanel</name>
    <message>
        <location filename="../../src/tensor_explorer/qt/workspace_panel.py" line="116"/>
        <source>No values yet.
Open a .npy/.npz file, use the Build form,
or type code below.</source>
        <translation>还没有任何值。
打开 .npy/.npz 文件、使用“创建”表单，
或在下方输入代码。</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/workspace_panel.py" line="141"/>
        <source>Rename…</source>
        <translation>重命名…</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/workspace_panel.py" line="142"/>
        <source>Duplicate (clone)</source>
        <translation>复制（clone）</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/workspace_panel.py" line="144"/>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/workspace_panel.py" line="156"/>
        <source>Move to device</source>
        <translation>移动到设备</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/workspace_panel.py" line="160"/>
        <source>Convert dtype</source>
        <translation>转换 dtype</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/workspace_panel.py" line="173"/>
        <source>Rename</source>
        <translation>重命名</translation>
    </message>
    <message>
        <location filename="../../src/tensor_explorer/qt/workspace_panel.py" line="174"/>
        <source>New name for {0}:</source>
        <translation>{0} 的新名称：</translation>
    </message>
</context>
</TS>
