"""Writes python-dotenv.json: what python-dotenv makes of tricky .env texts.

Run with python-dotenv's sources on the path (the golden file was made with
commit bca6644d9aedbe287b792b756b3ae3d650cd0d3a of
github.com/theskumar/python-dotenv):

    PYTHONPATH=/path/to/python-dotenv/src python3 gen_golden.py > python-dotenv.json
"""
import io
import json
import os
import random

from dotenv.main import DotEnv
from dotenv.parser import parse_stream

CASES = [
    "A=1",
    "A=1\nB=2\n",
    "export A=1",
    "export  A = 1 ",
    "exportA=1",
    "A = spaced value  ",
    "A=value # comment",
    "A=value#notcomment",
    "A= #hash",
    "A=\t#hash",
    "# comment\nA=1",
    "   # indented comment\n\n\nA=1",
    "A='single # not comment'",
    "A='it\\'s'",
    "A='back\\\\slash'",
    "A='no \\n escape'",
    'A="double \\n newline"',
    'A="tab\\tand\\\\back"',
    'A="quote \\" inside"',
    'A="a\\\\"',
    'A="unterminated',
    "A='unterminated",
    'A="multi\nline\nvalue"\nB=2',
    "A='multi\nline'\nB=2",
    'A="x" # trailing comment',
    'A="x" junk\nB=2',
    "A",
    "A\nB=2",
    "A # comment",
    "=novalue\nB=2",
    "A B=1\nC=3",
    "'quoted key'=1",
    "''=1\nB=2",
    "A=",
    "A=\nB=",
    "A:1\nB=2",
    "A=${B}\nB=2",
    "B=2\nA=${B}",
    "A=${HOME}",
    "A=$HOME",
    "A=${MISSING:-default}",
    "A=${MISSING:-}",
    "A=${EMPTY:-default}",
    "A=${B:-x}\nB=set\nC=${B:-y}",
    "A='${B}'\nB=2",
    "B=2\nA='${B}'",
    "A=${}",
    "A=${B:x}",
    "A=\"$(pwd) and `date`\"",
    "APPWORLD_SCRIPT=\"source $HOME/conda.sh; conda activate appworld; bash appworld.sh\"",
    "A=1\r\nB=2\r\n",
    "A=1\rB=2",
    "\ufeffA=bom",
    "A=ünïcödé",
    "A=x\u00a0#nbsp comment",
    "A=x\u2003",
    "A=1\nA=2",
    "A=1\nA",
    "A\nA=1",
    "HOME=fromfile\nX=${HOME}",
    "export",
    "export=1",
    "export A",
    "  A=1",
    "A=a\\nb",
    "A=\"a\\'b\"",
    'A="\\a\\b\\f\\r\\v"',
    "A='\\\"'",
    'A="a\\"b\\"',
    'A="a\\"b\\"c"\nB="d"',
    "A=1 #c\nB='2' #c\nC=\"3\" #c",
    "A=\"x\"\t\nB=2",
    "A.B=1\nA-B=2\nA/B=3",
    "A=#",
    "A= ",
    "A ==1",
    "A=='1'",
]

ENV = {"HOME": "/home/env", "EMPTY": "", "A_ENV": "fromenv"}


def run(text, override):
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(ENV)
    try:
        raw = []
        errors = 0
        for b in parse_stream(io.StringIO(text)):
            if b.error:
                errors += 1
            elif b.key is not None:
                raw.append([b.key, b.value])
        d = DotEnv(None, stream=io.StringIO(text), override=override).dict()
        return raw, errors, [[k, v] for k, v in d.items()]
    finally:
        os.environ.clear()
        os.environ.update(saved)


def random_text(rng):
    atoms = ["A", "B", "export ", "=", " ", "\t", "#", "'", '"', "\\", "\n", "\r\n", "\r",
             "${A}", "${B:-d}", "$", "{", "}", "x", "é", "\u00a0", ":", "-", "x y", "HOME"]
    return "".join(rng.choice(atoms) for _ in range(rng.randint(1, 24)))


def main():
    rng = random.Random(1)
    texts = CASES + [random_text(rng) for _ in range(400)]
    out = []
    for text in texts:
        for override in (False, True):
            raw, errors, resolved = run(text, override)
            out.append({"text": text, "override": override, "parsed": raw,
                        "errors": errors, "resolved": resolved})
    print(json.dumps({"env": ENV, "cases": out}, ensure_ascii=False, indent=0))


main()
