//! Drawing trees as indented text with box-drawing guides.

/// A labelled tree node.
#[derive(Debug, Clone, Default)]
pub struct Node {
    /// The node's one-line label.
    pub label: String,
    /// Its children, drawn in order.
    pub children: Vec<Node>,
}

impl Node {
    /// A node with no children.
    pub fn leaf(label: impl Into<String>) -> Node {
        Node {
            label: label.into(),
            children: Vec::new(),
        }
    }

    /// A node with children.
    pub fn new(label: impl Into<String>, children: Vec<Node>) -> Node {
        Node {
            label: label.into(),
            children,
        }
    }
}

/// Renders a forest, each line prefixed with `indent`.
pub fn draw(forest: &[Node], indent: &str, out: &mut String) {
    for node in forest {
        out.push_str(indent);
        out.push_str(&node.label);
        out.push('\n');
        draw_children(&node.children, indent, out);
    }
}

fn draw_children(children: &[Node], prefix: &str, out: &mut String) {
    for (i, child) in children.iter().enumerate() {
        let last = i + 1 == children.len();
        out.push_str(prefix);
        out.push_str(if last { "└─ " } else { "├─ " });
        out.push_str(&child.label);
        out.push('\n');
        let next = format!("{prefix}{}", if last { "   " } else { "│  " });
        draw_children(&child.children, &next, out);
    }
}
