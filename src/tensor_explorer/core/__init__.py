"""The Qt-free core: facts, statistics, diagnoses, loading, workspace and runner, memory
relations, autograd tracing and recording, lessons. Nothing here may import Qt."""

# The workspace never imports the session module (session depends on workspace): the session
# module registers its reader and writer with the workspace when imported, so that
# ``ws.save``, ``Workspace.open`` and ``ws.load_session`` work whatever was imported first.
from . import session as _session  # noqa: F401
