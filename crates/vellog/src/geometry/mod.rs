//! Sensor geometry: Velodyne packets to 3D points, Hokuyo ranges to 2D points.
