"""The graph pane loads what torch needs for its first backward off the UI thread."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def test_graph_pane_warms_torchs_first_backward_in_the_background() -> None:
    # A fresh process: torch's first backward imports torch.fx's symbolic shapes (+ SymPy,
    # ~0.3 s). Creating the pane must start that import on another thread, so a first backward
    # on a small graph (run inline on the UI thread) no longer pays for it.
    code = textwrap.dedent(
        """
        import sys, threading
        from tensor_explorer.qt.app import get_app
        from tensor_explorer.core import autograd as ag
        from tensor_explorer.core.workspace import Workspace
        from tensor_explorer.qt.bridge import WorkspaceBridge
        from tensor_explorer.qt.graph_panel import GraphPanel
        app = get_app()
        before = "torch.fx.experimental.symbolic_shapes" in sys.modules
        main = threading.current_thread()
        importer = []
        real_warm = ag.warm_up
        def spy():
            importer.append(threading.current_thread() is main)
            real_warm()
        ag.warm_up = spy
        pane = GraphPanel(WorkspaceBridge(Workspace()))
        assert ag._WARMED.wait(60)
        print(before, importer, "torch.fx.experimental.symbolic_shapes" in sys.modules)
        """
    )
    env = {"QT_QPA_PLATFORM": "offscreen"}
    import os

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, **env}, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "[False]", "True"]
