//! treesum: the binary-tree sum of Spice and chili: a complete binary tree of the given height
//! (2^height - 1 nodes) in one array in preorder, children by u32 index (none: `u32::MAX`),
//! values the splitmix64 outputs of seed 31 in preorder; summed by a recursion making one join
//! per node, leaves included (each branch sums one child, or gives 0 where there is none).
//! Checksum: the wrapping sum of all values. Heights 10 / 23 / 24.

use crate::rng::SplitMix64;
use crate::sys::Sys;
use crate::{Size, Stateless};

pub struct TreeSum;

pub const NO_CHILD: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
pub struct Node {
    pub value: u64,
    pub left: u32,
    pub right: u32,
}

/// Appends the complete subtree of the given height (>= 1) in preorder; returns its root.
fn grow(tree: &mut Vec<Node>, g: &mut SplitMix64, height: u32) -> u32 {
    let root = tree.len() as u32;
    tree.push(Node {
        value: g.next_u64(),
        left: NO_CHILD,
        right: NO_CHILD,
    });
    if height > 1 {
        let left = grow(tree, g, height - 1);
        let right = grow(tree, g, height - 1);
        tree[root as usize].left = left;
        tree[root as usize].right = right;
    }
    root
}

pub fn tree(height: u32) -> Vec<Node> {
    let mut t = Vec::with_capacity((1usize << height) - 1);
    grow(&mut t, &mut SplitMix64::new(31), height);
    t
}

/// One join per node: each branch sums one child's subtree (0 where there is no child).
fn sum<S: Sys>(c: &mut S::Ctx<'_>, tree: &[Node], i: u32) -> u64 {
    let n = &tree[i as usize];
    let (l, r) = S::join(
        c,
        |c| subtree::<S>(c, tree, n.left),
        |c| subtree::<S>(c, tree, n.right),
    );
    n.value.wrapping_add(l).wrapping_add(r)
}

#[inline(always)]
fn subtree<S: Sys>(c: &mut S::Ctx<'_>, tree: &[Node], child: u32) -> u64 {
    if child == NO_CHILD {
        0
    } else {
        sum::<S>(c, tree, child)
    }
}

impl Stateless for TreeSum {
    const NAME: &'static str = "treesum";
    type Input = Vec<Node>;

    fn generate(size: Size) -> Vec<Node> {
        tree(size.pick(10, 23, 24))
    }
    fn run<S: Sys>(c: &mut S::Ctx<'_>, t: &Vec<Node>) -> u64 {
        sum::<S>(c, t, 0)
    }
    /// A plain loop over the array.
    fn oracle(t: &Vec<Node>) -> u64 {
        t.iter().fold(0u64, |s, n| s.wrapping_add(n.value))
    }
}
