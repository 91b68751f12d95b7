//! The server's shape, kept: its modules import one another without a
//! circle (each `crate::module` named in a file is an import of that
//! module), and no source file is over 800 lines. `docs/architecture.md`
//! draws the layers this keeps.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The longest a source file of the server may be, in lines.
const MAX_LINES: usize = 800;

fn sources(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("the source folder") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            sources(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

/// The top-level module a source file belongs to (`lib` for lib.rs).
fn module_of(src: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(src).expect("a file under src");
    let first = relative
        .components()
        .next()
        .expect("a path")
        .as_os_str()
        .to_string_lossy()
        .into_owned();
    first.trim_end_matches(".rs").to_owned()
}

/// The top-level modules a file names as `crate::module` in its code (not
/// in its comments).
fn imports(text: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let code: String = text
        .lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let text = code.as_str();
    let mut found = BTreeSet::new();
    let mut rest = text;
    while let Some(at) = rest.find("crate::") {
        rest = &rest[at + "crate::".len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if modules.contains(&name) {
            found.insert(name);
        }
    }
    // `use crate::{a, b::c}` names several.
    let mut rest = text;
    while let Some(at) = rest.find("crate::{") {
        rest = &rest[at + "crate::{".len()..];
        let group = &rest[..rest.find('}').unwrap_or(rest.len())];
        for part in group.split(',') {
            let name = part.trim().split("::").next().unwrap_or("").trim();
            if modules.contains(name) {
                found.insert(name.to_owned());
            }
        }
    }
    found
}

/// A circle of the graph, if it has one.
fn circle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            return Some(path[at..].to_vec());
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(found) = visit(next, graph, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(node.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut Vec::new(), &mut done))
}

#[test]
fn the_server_s_modules_import_one_another_without_a_circle_and_stay_short() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let modules: BTreeSet<String> = files
        .iter()
        .map(|f| module_of(&src, f))
        .filter(|m| m != "lib")
        .collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut long = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("a readable source");
        let lines = text.lines().count();
        if lines > MAX_LINES {
            long.push(format!("{} ({lines})", file.display()));
        }
        let module = module_of(&src, file);
        if module == "lib" {
            continue;
        }
        let edges = graph.entry(module.clone()).or_default();
        edges.extend(
            imports(&text, &modules)
                .into_iter()
                .filter(|m| *m != module),
        );
    }
    assert!(long.is_empty(), "files over {MAX_LINES} lines: {long:?}");
    assert_eq!(
        circle(&graph),
        None,
        "modules that import each other in a circle"
    );
    assert!(graph.len() > 10, "the modules were found: {graph:?}");
}

#[test]
fn a_circle_is_found_where_there_is_one() {
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a"]),
        ("d", vec![]),
    ]
    .into_iter()
    .map(|(n, e)| (n.to_owned(), e.into_iter().map(str::to_owned).collect()))
    .collect();
    assert_eq!(
        circle(&graph),
        Some(vec!["a".to_owned(), "b".to_owned(), "c".to_owned()])
    );
    let modules: BTreeSet<String> = ["table", "storage", "http", "ws"].map(str::to_owned).into();
    let named: BTreeSet<String> = ["table", "storage", "http"].map(str::to_owned).into();
    assert_eq!(
        imports(
            "use crate::{http::error::HttpError, table};\nlet x = crate::storage::Storage;\n\
             /// See [`crate::ws`].",
            &modules
        ),
        named
    );
}
