"""Bad `--data` inputs shared by the data-layer and the CLI tests."""


def bad_data_arguments(tmp_path):
    """(argument, what the one-line message must say) for each bad input."""
    cases = []

    def add(name, content, expect):
        path = tmp_path / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        cases.append((str(path), expect))

    add("no_text.csv", "body,label\nhello,a\nbye,b\n", "no 'text' column")
    add("one_class.csv", "text,label\nhello,a\nbye,a\nhi,a\n", "expected at least two classes")
    add("empty.csv", "", "empty file")
    add("header_only.csv", "text,label\n", "no rows after the header")
    add("latin1.csv", b"text,label\nfine,a\ncaf\xe9 au lait,b\n", "line 3: not UTF-8")
    add("mixed.csv", "text,label\nhello,1\nbye,spam\n", "line 3: label 'spam' is a name but")
    add("fraction.csv", "text,label\nhello,0.5\nbye,1\n", "line 2: label '0.5' is neither an integer nor")
    add(
        "blank_label.jsonl",
        '{"text": "a", "label": 1}\n{"text": "b", "label": null}\n',
        "line 2: label None is neither",
    )
    add("not_json.jsonl", '{"text": "a", "label": 1}\n{oops\n', "line 2: not JSON")
    add("no_label.csv", "text\nhello\nbye\n", "no labels")
    add("unknown.xlsx", "x", "unknown file type '.xlsx'")
    one = tmp_path / "one_class_folder"
    (one / "pos").mkdir(parents=True)
    (one / "pos" / "a.txt").write_text("good", encoding="utf-8")
    cases.append((str(one), "1 class sub-folder(s) (pos); expected one sub-folder of .txt files per class"))
    cases.append(("sst2", "unknown dataset 'sst2'; expected rotten_tomatoes, imdb, tfds:NAME"))
    cases.append((str(tmp_path / "missing.csv"), "missing.csv: no such file or folder"))
    return cases
