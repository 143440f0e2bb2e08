print("alertctl")
