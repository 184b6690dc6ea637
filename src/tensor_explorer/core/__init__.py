"""The Qt-free core: facts, statistics, diagnoses, loading, workspace and runner, memory
relations, autograd tracing and recording, lessons. Nothing here may import Qt."""
