"""The app tests run torch (embeddings) and llama.cpp (the offline model) in one process, as the app does.

Idle OpenMP workers that spin starve the other library on a shared machine; the app's entry points set
OMP_WAIT_POLICY=PASSIVE before either loads, and so does this file for the test session when it is collected
before torch is first imported.
"""

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
