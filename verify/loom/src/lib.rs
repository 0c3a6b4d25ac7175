// models live in tests/
