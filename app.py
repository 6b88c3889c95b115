"""Launch the theorem-rag web app on the embedded defaults: ``python app.py`` (settings from THEOREM_RAG_*)."""

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

if __name__ == "__main__":
    from theorem_rag.ui.app import build_app, launch

    demo, search, _ = build_app()
    try:
        launch(demo, host=os.environ.get("THEOREM_RAG_HOST", "127.0.0.1"), port=int(os.environ.get("THEOREM_RAG_PORT", "7860")))
    finally:
        search.close()
