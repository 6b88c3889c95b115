"""The Gradio app (``theorem-rag serve``, ``python app.py``): search cards and a cited assistant.

Importing this package loads no Gradio; :func:`theorem_rag.ui.app.create_app` does.
"""
