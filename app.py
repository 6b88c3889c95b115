"""Launch the theorem-rag web app on the embedded defaults: ``python app.py`` (settings from THEOREM_RAG_*)."""

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
# Before torch and llama.cpp load: their OpenMP workers otherwise spin while idle and, on a busy machine, starve
# each other (measured: search p50 177 ms -> 30 ms, an offline answer 306 s -> 8 s; benchmarks/bench_app.py).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

if __name__ == "__main__":
    from theorem_rag.config import Settings
    from theorem_rag.ui.app import build_app
    from theorem_rag.ui.server import AppGuards, serve_forever

    # The guards of `theorem-rag serve` from the same settings; a host beyond loopback needs THEOREM_RAG_API_KEY.
    settings = Settings()
    demo, search, _ = build_app(settings)
    serve_forever(demo, search, host=os.environ.get("THEOREM_RAG_HOST", "127.0.0.1"),
                  port=int(os.environ.get("THEOREM_RAG_PORT", "7860")), guards=AppGuards.from_settings(settings))
