//! Items grouped by the keys they share: a union–find.

use std::collections::HashMap;
use std::hash::Hash;

/// The items `0..items` grouped so that two items with a key in common
/// are in one group, and so on transitively; each group in item order,
/// the groups in the order of their first items. `keys` gives each key of
/// an item as (item, key). Linear in the keys, near enough (path halving).
pub fn linked_groups<K: Hash + Eq>(
    items: usize,
    keys: impl IntoIterator<Item = (usize, K)>,
) -> Vec<Vec<usize>> {
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let mut parent: Vec<usize> = (0..items).collect();
    let mut owner: HashMap<K, usize> = HashMap::new();
    for (item, key) in keys {
        let other = *owner.entry(key).or_insert(item);
        let (a, b) = (root(&mut parent, item), root(&mut parent, other));
        parent[a.max(b)] = a.min(b);
    }
    let mut index_of_root: HashMap<usize, usize> = HashMap::new();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for item in 0..items {
        let r = root(&mut parent, item);
        let g = *index_of_root.entry(r).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[g].push(item);
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_sharing_a_key_are_grouped_transitively() {
        let keys = [(0, "a"), (1, "b"), (2, "c"), (3, "a"), (3, "c"), (4, "b")];
        assert_eq!(
            linked_groups(6, keys),
            vec![vec![0, 2, 3], vec![1, 4], vec![5]]
        );
        assert_eq!(
            linked_groups(0, Vec::<(usize, u8)>::new()),
            Vec::<Vec<usize>>::new()
        );
    }
}
