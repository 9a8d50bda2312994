print("Stratus quick start: not built yet")
