"""The projector's kernel-side computations: projections (PCA, custom, t-SNE, UMAP), exact
nearest neighbours and regex queries over metadata, each a pure function of arrays so that the
dashboard module (dashboards/projector.py) only parses requests and caches results."""
