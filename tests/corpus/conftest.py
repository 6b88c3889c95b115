from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "latex"


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES
