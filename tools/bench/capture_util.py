"""Helpers shared by the PyTorch capture scripts of tools/bench (no torch needed to import)."""


def strip_kernel_name(name):
    """'void ns::k<a, b>(P, Q)' -> 'ns::k<a, b>' (keeps template arguments)."""
    n = name.strip()
    if n.startswith("void "):
        n = n[5:]
    if n.endswith(")"):
        depth = 0
        for i in range(len(n) - 1, -1, -1):
            ch = n[i]
            if ch == ")":
                depth += 1
            elif ch == "(":
                depth -= 1
                if depth == 0:
                    # only strip if this '(' is not inside template brackets
                    if n[:i].count("<") == n[:i].count(">"):
                        n = n[:i]
                    break
    return n.strip()
